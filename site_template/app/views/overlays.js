/** The help overlay and the guidelines panel. */
import { watch } from '../state/store.js';
import { h } from '../util.js';
import { renderGuidelines } from './markdown.js';

/** Help overlay (`?`) and guidelines panel. */
export function mountOverlays(store, actions, manifest, { help, guide }) {
  const body = guide.querySelector('#guidelines-body');
  const content = renderGuidelines(manifest.guidelines);
  if (content) body.replaceChildren(content);
  else body.replaceChildren(h('p', { class: 'muted' }, 'This bundle has no guidelines.'));
  help.addEventListener('click', (ev) => {
    if (ev.target === help || ev.target.closest('[data-action="close-help"]')) actions.toggleHelp(false);
  });
  guide.querySelector('[data-action="close-guidelines"]').addEventListener('click', () => actions.toggleGuidelines(false));
  watch(store, (s) => [s.ui.help, s.ui.guidelines], (s) => {
    help.hidden = !s.ui.help;
    guide.hidden = !s.ui.guidelines;
  });
}
