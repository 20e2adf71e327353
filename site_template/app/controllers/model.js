/**
 * The in-browser model, loaded lazily (after the first record has painted, or at the first `embed` call):
 * its status goes to the store's `model`. The assistant follows the store (assist.js `follow`): once the
 * model is ready it refines its answer with it.
 */
import { Assistant } from '../assist/assist.js';

/**
 * Returns {assistant (assist.js, ranking with the model once loaded), unfollow() (the assistant stops following
 * the store), loadModel(), embed(texts)}.
 */
export function mountModel(store, bundle) {
  const { manifest } = bundle;
  const { actions } = store;
  let embedder = null;
  const assistant = new Assistant(store, manifest, () => embedder);
  const unfollow = assistant.follow();

  let modelPromise = null;
  function loadModel() {
    if (!modelPromise) {
      const since = performance.now();
      actions.setModel({ status: 'loading', message: '', since });
      modelPromise = import('../assist/embedder.js').then(({ createEmbedder }) => {
        embedder = createEmbedder(manifest, bundle.baseUrl);
        const report = () => {
          if (embedder.status === 'ready' && store.state.model.status !== 'ready') performance.mark('mercury-model-ready');
          const { loaded = null, total = null } = embedder.progress || {};
          actions.setModel({ status: embedder.status, message: embedder.error ? String(embedder.error) : '',
            loaded, total, since });
        };
        embedder.onStatus(report);
        report();
        return embedder.ready.then(report);
      }).catch((err) => {
        actions.setModel({ status: 'failed', message: String(err && err.message ? err.message : err) });
        throw err;
      });
      modelPromise.catch(() => {});
    }
    return modelPromise;
  }

  return {
    assistant,
    unfollow,
    loadModel,
    embed: async (texts) => {
      if (!embedder) await loadModel();
      return embedder.embed(texts);
    },
  };
}
