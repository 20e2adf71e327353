/**
 * Who annotates: the name from the link (remembered), else the remembered one, else the name dialog, asked
 * once. Names are normalised (names.js); the spellings as given are kept for the earlier-work offer.
 */
import { trapFocus } from '../keys/keys.js';
import { normalizeName } from '../state/names.js';
import { prefs } from '../state/prefs.js';

/**
 * The names as given before they were normalised (the link's, the remembered one), under which an earlier
 * page may have saved this annotator's work (offered for import, files.js offerEarlier).
 */
export const spellings = [(new URLSearchParams(window.location.search).get('annotator') || '').trim(), String(prefs.get('annotator') || '')];

/** The annotator (normalised, names.js): ?annotator=NAME (remembered), else the remembered name, else ask once. */
export function resolveAnnotator() {
  const fromUrl = normalizeName(new URLSearchParams(window.location.search).get('annotator'));
  if (fromUrl) {
    prefs.set('annotator', fromUrl);
    return Promise.resolve(fromUrl);
  }
  const saved = normalizeName(prefs.get('annotator'));
  if (saved) return Promise.resolve(saved);
  const dialog = document.getElementById('annotator-dialog');
  const form = dialog.querySelector('form');
  dialog.hidden = false;
  const release = trapFocus(form);
  const input = dialog.querySelector('input');
  return new Promise((resolve) => {
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const name = normalizeName(input.value);
      if (!name) return;
      prefs.set('annotator', name);
      dialog.hidden = true;
      release();
      resolve(name);
    });
  });
}
