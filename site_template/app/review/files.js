/**
 * The review's files: the review export (the button, Shift+E) downloaded, and an earlier review export
 * imported (the file input), each record entry checked by gold's rules against its review record and texts
 * (reviewfile.js) before the store merges it.
 */
import { buildReviewExport } from '../state/reviewentries.js';
import { exportFileName } from '../state/exportfile.js';
import { nowIso, onFileChosen } from '../util.js';
import { checkReviewImport, parseReviewImport, readReviewFile } from './reviewimport.js';
import { downloadJson } from '../io/download.js';

/** Wire export and import; returns {exportNow(), chooseImport()}. */
export function mountReviewFiles(store, { bundle, data, reviewer }) {
  const { manifest } = bundle;
  const { actions } = store;
  async function exportNow() {
    const at = nowIso();
    await data.allRows().catch(() => null);
    const order = new Map(data.rows.filter(Boolean).map((r, i) => [r.id, i]));
    const file = buildReviewExport({
      manifest, reviewer, clientId: store.state.clientId, work: store.state.work, order, exportedAt: at,
    });
    // review-TITLE-REVIEWER-TIME.json: the name `gold review-*.json` (the docs' command) picks out of a folder
    downloadJson(file, `review-${exportFileName(manifest, reviewer, at)}`);
    actions.markExported(at);
  }

  /** The review record of `id` (null: not in this review) and, when asked, its texts. */
  let rowsById = null;
  async function lookup(id, withTexts) {
    rowsById ??= new Map((await data.allRows()).filter(Boolean).map((r) => [r.id, r]));
    const row = rowsById.get(id);
    if (!row) return null;
    const [record, texts] = await Promise.all([data.record(row), withTexts ? bundle.record(id) : null]);
    return { record, texts };
  }
  const importInput = document.getElementById('import-file');
  onFileChosen(importInput, async (file) => {
    const doc = parseReviewImport(await readReviewFile(file), { manifest, reviewer, name: file.name });
    const { future, ...work } = await checkReviewImport(doc, { manifest, name: file.name, lookup });
    actions.importWork(work);
    const n = Object.keys(work.records).length;
    const late = future ? ` ${future} time${future === 1 ? ' in the file was' : 's in the file were'} later than now (the computer that exported it had a wrong clock?): counted as the time of this import.` : '';
    actions.message(`Imported your review of ${n} record${n === 1 ? '' : 's'} from ${file.name}; newer decisions here were kept.${late}`);
  }, actions.message);
  return { exportNow, chooseImport: () => importInput.click() };
}
