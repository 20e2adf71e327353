/**
 * The annotator's files: export (the button, `e`), import (the file input), the offer of work saved here
 * under an earlier build or another spelling of the name, and the optional upload to the team's storage.
 */
import { buildExport, checkAgainstBundle, exportFileName, exportText, parseImport } from '../state/exportfile.js';
import { downloadJson } from '../io/download.js';
import { normalizeName } from '../state/names.js';
import { pageSettings } from '../state/settings.js';
import { prefs } from '../state/prefs.js';
import { startUploads, takeLink } from '../io/upload.js';
import { nowIso, onFileChosen } from '../util.js';
import { mountUploadStatus } from '../views/uploadstatus.js';

/**
 * What an import did, in plain words: what it brought in, what it left out (the entries merge would
 * refuse too, the first few named) and the times it found in the future (a wrong clock), counted as now.
 * `shared`: records of the file this browser already had work on (only then can newer work here be kept).
 */
function importMessage(res, fileName, left, future, shared) {
  const n = (k, one) => `${k} ${one}${k === 1 ? '' : 's'}`;
  let text = `Imported ${n(res.annotations, 'annotation')} on ${n(res.records, 'record')} from ${fileName}`;
  text += shared ? `; on ${n(shared, 'record')} this browser also had work: its newer changes were kept.` : '.';
  if (left.length) {
    const shown = left.slice(0, 3).join('; ');
    text += ` Left out ${left.length} unusable entr${left.length === 1 ? 'y' : 'ies'} (merge would refuse ${left.length === 1 ? 'it' : 'them'} too): ${shown}${left.length > 3 ? '; …' : ''}.`;
  }
  if (future) text += ` ${n(future, 'time')} in the file ${future === 1 ? 'was' : 'were'} later than now (the computer that exported it had a wrong clock?): counted as the time of this import.`;
  return text;
}

/**
 * Wire export and import for `annotator`'s work in `store` (`storage`: its WorkStorage, `spellings`: the
 * names as given, annotator.js). Returns {exportNow(), importFile() (opens the file picker), offerEarlier()}.
 */
export function mountFiles(store, bundle, storage, annotator, spellings) {
  const { manifest } = bundle;
  const { actions } = store;
  const { blind } = pageSettings(manifest, annotator); // an import's acceptances checked against what was shown
  /**
   * Export the work as it is now, records in bundle order: their positions are the store's placed ones,
   * the few not placed yet read from their ids shards. If those cannot be read, these records are
   * exported all the same, after the others (merge checks every id against the bundle): no stored work
   * is ever left out of an export.
   */
  async function exportData(at) {
    actions.saveTime(); // the time on task counted up to now goes with the work
    const s = store.state;
    const unplaced = Object.keys(s.work.records).filter((id) => !s.placed.has(id));
    let positions = s.placed;
    let unlooked = [];
    if (unplaced.length) {
      positions = new Map(s.placed);
      try {
        const found = await bundle.recordIndex.positionsOf(unplaced);
        for (const [id, p] of found) positions.set(id, p);
      } catch {
        unlooked = unplaced.sort();
        unlooked.forEach((id, k) => positions.set(id, bundle.recordIndex.count + k));
      }
    }
    return {
      data: buildExport({ manifest, positions, annotator, clientId: s.clientId, work: s.work, exportedAt: at }),
      unlooked,
    };
  }
  async function exportNow() {
    const at = nowIso();
    const { data, unlooked } = await exportData(at);
    downloadJson(data, exportFileName(manifest, annotator, at));
    actions.markExported(at);
    const n = unlooked.length;
    if (n) actions.message(`${n} record${n === 1 ? '' : 's'} with work could not be looked up in this bundle's index (its files did not load): exported all the same, after the others.`);
  }
  const importInput = document.getElementById('import-file');
  onFileChosen(importInput, async (file) => {
    const parsed = parseImport(await file.text(), {
      manifest, annotator, clientId: store.state.clientId, now: nowIso(),
    });
    const res = await checkAgainstBundle(parsed.work, bundle, blind);
    const left = [...parsed.left, ...res.left];
    const shared = actions.importFile(res.work, !left.length && Boolean(parsed.exportedAt));
    actions.message(importMessage(res, file.name, left, parsed.future, shared));
  }, actions.message);

  /**
   * Work saved here under an earlier build of this bundle (same title, another bundle id): offered for
   * import, through the export format and checked against this bundle's texts like an export file.
   */
  async function offerEarlier() {
    const mine = spellings.filter((n) => normalizeName(n) === annotator); // not another name remembered here
    const found = await storage.earlierBundles(manifest.bundle_id, manifest.title, annotator, mine).catch(() => []);
    if (!found.length) return;
    const importEarlier = async ({ key, bundleId, work }) => {
      const at = nowIso();
      // every record: checkAgainstBundle keeps this bundle's
      const all = new Map(Object.keys(work.records).map((id, i) => [id, i]));
      const file = buildExport({
        manifest, positions: all, annotator, clientId: store.state.clientId, work, exportedAt: at,
      });
      const parsed = parseImport(JSON.stringify(file), { manifest, annotator }); // its times: another key's
      const res = await checkAgainstBundle(parsed.work, bundle, blind);
      actions.importWork(res.work);
      prefs.set(`earlier-done:${manifest.bundle_id}:${key}`, at);
      const skipped = parsed.skipped + res.skipped;
      const from = bundleId === manifest.bundle_id ? 'the work saved under your name as you gave it before' : 'the earlier build';
      actions.message(`Imported ${res.annotations} annotation${res.annotations === 1 ? '' : 's'} on ${res.records} record${res.records === 1 ? '' : 's'} from ${from}.${skipped ? ` ${skipped} did not match this bundle's texts and were left out (they stay where they were stored).` : ''}`);
    };
    const later = ({ key }) => prefs.set(`earlier-done:${manifest.bundle_id}:${key}`, nowIso());
    actions.offerEarlier(found.map((f) => ({
      key: f.key, bundleId: f.bundleId, spelling: f.spelling, earlierBuild: f.bundleId !== manifest.bundle_id,
      records: Object.keys(f.work.records).length, accept: () => importEarlier(f), decline: () => later(f),
    })));
  }

  // The upload to the team's storage (upload.js), when the coordinator's link gave one: never blocks, never
  // touches the work; its state is the store's ui.upload, shown in the top bar.
  const collect = takeLink(prefs, manifest.bundle_id, annotator);
  if (collect.problem) actions.message(collect.problem);
  if (collect.link) {
    const uploads = startUploads({
      link: collect.link, annotator, clientId: store.state.clientId, bundleId: manifest.bundle_id, prefs,
      state: actions.setUpload,
      exportText: async () => exportText((await exportData(nowIso())).data),
    });
    mountUploadStatus(store, document.getElementById('upload-status'));
    store.subscribe((s, prev) => {
      if (s.work !== prev.work) uploads.changed();
    });
    if (Object.keys(store.state.work.records).length) uploads.now(); // catch up on what a closed page left
  }

  return { exportNow, importFile: () => importInput.click(), offerEarlier };
}
