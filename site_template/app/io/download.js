/** The page's one download: a JSON file the browser saves (an export, a review, work kept aside). */
import { exportText } from '../state/exportfile.js';

/** Trigger a download of `obj` as a JSON file (Blob + <a download>). */
export function downloadJson(obj, fileName) {
  const blob = new Blob([exportText(obj)], { type: 'application/json' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
