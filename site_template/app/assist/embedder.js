// Main-thread wrapper around embed-worker.js: the bundled model, loaded once, with a request queue.
//
//   const emb = createEmbedder(manifest, baseUrl);
//   emb.status            'idle' | 'loading' | 'ready' | 'failed'   (emb.error holds the failure)
//   emb.onStatus(cb)      cb(status) on every change, and while loading on each progress; returns an unsubscribe
//   emb.progress          while loading: {loaded, total} bytes of the model's download (total null: unknown)
//   await emb.ready       resolves when the model answered a first call; rejects if it failed
//   await emb.embed([..]) Float32Array[] (L2-normalised, manifest.model.dim long), in order
//   await emb.embedLatest(text)  Float32Array, or null when a newer embedLatest call superseded it
//   await emb.tokens([..]) per text {spans, vectors} (tokens.js) or null; behind every embed call queued
//   emb.free              ready, with no call running or queued (a new call is answered without waiting)

import { controlled } from '../offline.js';

/** Split `models/<name>` into the models folder as a same-origin *path* and the model name. */
export function modelLocation(manifest, baseUrl = './') {
  const path = String(manifest.model.path || `models/${manifest.model.name}`).replace(/\/+$/, '');
  const cut = path.lastIndexOf('/');
  const folder = new URL(path.slice(0, cut + 1), new URL(baseUrl, document.baseURI));
  return { modelsPath: folder.pathname, modelName: path.slice(cut + 1) };
}

export function createEmbedder(manifest, baseUrl = './') {
  const listeners = new Set();
  const pending = new Map(); // id -> {resolve, reject, latest}
  const queue = []; // jobs not yet sent: {id, type, texts, resolve, reject, latest}
  let nextId = 1;
  let latestSeq = 0;
  let busy = false;
  let worker = null;
  let readyResolve;
  let readyReject;

  const emb = {
    status: 'idle',
    error: null,
    progress: null,
    dim: manifest.model.dim,
    ready: new Promise((resolve, reject) => {
      readyResolve = resolve;
      readyReject = reject;
    }),
    get free() {
      return emb.status === 'ready' && !busy && !queue.length;
    },
    onStatus(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
    embed(texts) {
      const list = Array.from(texts, String);
      return list.length ? enqueue(list, 0) : Promise.resolve([]);
    },
    embedLatest(text) {
      latestSeq += 1;
      // Drop older latest-requests that have not reached the worker yet.
      for (let i = queue.length - 1; i >= 0; i--) {
        if (queue[i].latest) queue.splice(i, 1)[0].resolve(null);
      }
      return enqueue([String(text)], latestSeq).then((r) => (r ? r[0] : null));
    },
    tokens(texts) {
      const list = Array.from(texts, String);
      return list.length ? enqueue(list, 0, 'tokens') : Promise.resolve([]);
    },
  };
  emb.ready.catch(() => {}); // observed through status / callers

  function setStatus(status, error = null) {
    emb.status = status;
    emb.error = error;
    for (const cb of listeners) {
      try {
        cb(status);
      } catch (err) {
        console.error(err);
      }
    }
  }

  function fail(error) {
    if (emb.status === 'failed') return;
    const err = error instanceof Error ? error : new Error(String(error));
    if (worker) worker.terminate();
    setStatus('failed', err);
    readyReject(err);
    for (const job of [...queue, ...pending.values()]) job.reject(err);
    queue.length = 0;
    pending.clear();
  }

  /** Queue a job; an embed job goes before the token jobs queued (they are idle-time work). */
  function enqueue(texts, latest, type = 'embed') {
    if (emb.status === 'failed') return Promise.reject(emb.error);
    return new Promise((resolve, reject) => {
      const job = { id: nextId++, type, texts, resolve, reject, latest };
      const at = type === 'embed' ? queue.findIndex((j) => j.type === 'tokens') : -1;
      if (at < 0) queue.push(job);
      else queue.splice(at, 0, job);
      pump();
    });
  }

  function pump() {
    if (busy || emb.status !== 'ready' || !queue.length) return;
    const job = queue.shift();
    busy = true;
    pending.set(job.id, job);
    worker.postMessage({ type: job.type, id: job.id, texts: job.texts });
  }

  function onMessage(event) {
    const msg = event.data;
    if (msg.type === 'progress') {
      emb.progress = { loaded: msg.loaded, total: msg.total };
      if (emb.status === 'loading') setStatus('loading');
    } else if (msg.type === 'ready') {
      emb.progress = null;
      setStatus('ready');
      readyResolve(emb);
      pump();
    } else if (msg.type === 'failed') {
      fail(new Error(`model failed to load: ${msg.error}`));
    } else if (msg.type === 'result' || msg.type === 'tokens' || msg.type === 'error') {
      const job = pending.get(msg.id);
      pending.delete(msg.id);
      busy = false;
      if (job) {
        if (msg.type === 'error') job.reject(new Error(msg.error));
        else if (job.latest && job.latest !== latestSeq) job.resolve(null); // superseded while running
        else if (msg.type === 'tokens') job.resolve(msg.rows);
        else {
          const rows = [];
          for (let i = 0; i < job.texts.length; i++) rows.push(msg.data.subarray(i * msg.dim, (i + 1) * msg.dim));
          job.resolve(rows);
        }
      }
      pump();
    }
  }

  function start() {
    try {
      const { modelsPath, modelName } = modelLocation(manifest, baseUrl);
      worker = new Worker(new URL('app/embed-worker.js', new URL(baseUrl, document.baseURI)), { type: 'module' });
      worker.onmessage = onMessage;
      worker.onerror = (event) => {
        event.preventDefault();
        fail(new Error(`model worker failed: ${event.message || 'could not start (see console)'}`));
      };
      const weights = manifest.model.weights ? new URL(`${modelsPath}${modelName}/${manifest.model.weights}`, document.baseURI).href : null;
      worker.postMessage({ type: 'init', modelsPath, modelName, pooling: manifest.model.pooling || 'mean', weights,
        download: manifest.model.download ?? null });
    } catch (err) {
      fail(err);
    }
  }

  setStatus('loading');
  // once the service worker controls the page (offline.js): the model it fetches is then kept for offline use
  controlled().then(start);
  return emb;
}
