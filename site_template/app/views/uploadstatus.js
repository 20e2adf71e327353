/** The top bar's upload state (controllers/files.js mounts it when the bundle has an upload link). */
import { watch } from '../state/store.js';
import { ago } from '../io/upload.js';

/**
 * The upload's state in the top bar (upload.js): "uploaded 2 min ago", "not uploaded: offline, retrying",
 * "upload link expired"; the reason in its title. Redrawn every 30 s for the "ago".
 */
export function mountUploadStatus(store, el) {
  el.hidden = false;
  const draw = () => {
    const u = store.state.ui.upload;
    if (!u) return;
    el.dataset.state = u.state;
    const when = u.at ? `uploaded ${ago(Date.parse(u.at), Date.now())}` : 'not uploaded yet';
    el.textContent = {
      idle: when,
      uploading: u.at ? `${when} · uploading…` : 'uploading…',
      uploaded: when,
      retrying: `NOT uploaded: ${u.cause || 'retrying'}, retrying`,
      waiting: 'NOT uploaded: waiting for the network',
      failed: `NOT uploaded: ${u.cause}`,
      expired: 'NOT uploaded: link expired',
      refused: 'NOT uploaded: link refused',
    }[u.state] ?? '';
    el.title = u.reason || (u.at ? `Your work was last uploaded to your coordinator's storage at ${new Date(u.at).toLocaleString()}.` : '');
  };
  watch(store, (s) => [s.ui.upload], draw);
  setInterval(draw, 30_000);
}
