/** The banners over the page: stored work unreadable or from an earlier build, storage errors, messages, reminders. */
import { undelivered, watch } from '../state/store.js';
import { clip, h } from '../util.js';

/** Banners: storage full, messages, export reminder. */
export function mountBanners(store, actions, box, exportNow) {
  const deps = (s) => [s.ui.storageError, s.ui.message, s.work, s.model.status, s.ui.aside, s.ui.earlier, s.ui.upload];
  watch(store, deps, (s) => {
    const out = [];
    if (s.ui.aside.length) out.push(asideBanner(s.ui.aside, actions));
    for (const offer of s.ui.earlier) out.push(earlierBanner(offer, actions));
    if (s.ui.storageError) {
      const b = h('button', { type: 'button', 'data-action': 'export' }, 'Export my work to a file');
      b.addEventListener('click', exportNow);
      out.push(h('div', { class: 'banner error', role: 'alert', id: 'storage-error' }, s.ui.storageError, ' ', b));
    }
    if (s.ui.message) {
      const x = h('button', { type: 'button', class: 'link', 'aria-label': 'dismiss' }, '×');
      x.addEventListener('click', () => actions.message(null));
      out.push(h('div', { class: 'banner info', role: 'status', id: 'message' }, s.ui.message, ' ', x));
    }
    const n = undelivered(s.work, s.ui.upload).n; // uploaded work is not only in this browser
    if (n >= 20 && !s.ui.storageError) {
      const b = h('button', { type: 'button', 'data-action': 'export' }, 'Export');
      b.addEventListener('click', exportNow);
      out.push(h('div', { class: 'banner warn', id: 'export-reminder' },
        `${n} changes are only in this browser. Export them to a file regularly (they are safe here, but a cleared browser loses them).`, ' ', b));
    }
    box.replaceChildren(...out);
  });
}

/**
 * Stored work that could not be read: it is kept as it was (never overwritten), the page works on a
 * fresh key with what was readable; the raw value can be downloaded for the coordinator.
 */
function asideBanner(aside, actions) {
  const download = h('button', { type: 'button', 'data-action': 'download-raw' }, 'Download it raw');
  download.addEventListener('click', () => {
    const raw = aside.map((a) => `# ${a.where}\n# ${a.problems.join('\n# ')}\n${a.raw}\n`).join('\n');
    const url = URL.createObjectURL(new Blob([raw], { type: 'text/plain' }));
    const a = h('a', { href: url, download: `unreadable-saved-work-${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)}.txt`, hidden: true });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  const x = h('button', { type: 'button', class: 'link', 'aria-label': 'dismiss' }, '×');
  x.addEventListener('click', () => actions.dismissAside());
  const problems = aside.flatMap((a) => a.problems);
  return h('div', { class: 'banner error', role: 'alert', id: 'storage-aside' },
    `Saved work in this browser could not be read as it is (${problems.length} problem${problems.length === 1 ? '' : 's'}: ${clip(problems.join('; '), 160)}). `
    + 'It is kept aside, untouched; what could be read is here and your work continues on a fresh key. ',
    download, ' ', x);
}

/**
 * Work saved under an earlier build of this bundle (same title), or under another spelling of the name: import it
 * or not.
 */
function earlierBanner(offer, actions) {
  const yes = h('button', { type: 'button', 'data-action': 'import-earlier', class: 'primary' }, 'Import it');
  yes.addEventListener('click', () => actions.answerEarlier(offer.key, true));
  const no = h('button', { type: 'button', 'data-action': 'decline-earlier' }, 'No, leave it');
  no.addEventListener('click', () => actions.answerEarlier(offer.key, false));
  const records = `${offer.records} record${offer.records === 1 ? '' : 's'}`;
  const where = offer.earlierBuild ? ` of an earlier build of this bundle (same title, bundle ${offer.bundleId})` : ' of this bundle';
  const spelling = offer.spelling === null ? '' : `, saved under the name ${JSON.stringify(offer.spelling)} (yours once invisible characters are removed)`;
  return h('div', { class: 'banner warn', role: 'status', 'data-earlier': offer.key },
    `This browser holds your work on ${records}${where}${spelling}. `
    + 'Import it? Annotations are checked against the current texts; what does not match is left out. ', yes, ' ', no);
}
