// Module Web Worker: runs the bundled sentence-embedding model with transformers.js (onnxruntime-web).
// Messages in:  {type: 'init', modelsPath, modelName, pooling, weights, download}  then  {type: 'embed', id, texts}
//   or {type: 'tokens', id, texts}
//   weights: the URL of the model's weights file (page_model.py), or null for a model folder without one
//   download: the bytes the model's files and the runtime's wasm add up to (the manifest's), or null
// Messages out: {type: 'ready'} | {type: 'failed', error} | {type: 'result', id, data, dim}
//   | {type: 'tokens', id, rows: [{spans, vectors} | null per text]} | {type: 'error', id, error}
//   | {type: 'progress', loaded, total}  while the files download (total null when not known)
import { env, pipeline } from '../vendor/transformers.min.js';
import { EXTERNAL_NAME, dequantize } from './assist/weights.js';
import { tokenSpans } from './assist/tokens.js';

let extractor = null;
let pooling = 'mean';

/** Data that onnxruntime-web reads only when it creates the session (an external-data Blob: it awaits
 * arrayBuffer()), so the weights download and are dequantized while transformers.js fetches the graph and
 * the runtime starts, instead of before. Read once: the session holds its own copy, so this lets go of the
 * float32 weights (transformers.js keeps the session options). */
class PendingData extends Blob {
  constructor(bytes) {
    super();
    this.bytes = bytes;
  }

  arrayBuffer() {
    const bytes = this.bytes;
    this.bytes = null;
    return bytes;
  }
}

const PROGRESS_MS = 250;
/** Bytes received so far by file, posted at most every PROGRESS_MS (and once each file is whole). */
const received = { files: new Map(), total: null, posted: 0 };

function count(file, bytes, force = false) {
  received.files.set(file, bytes);
  const now = performance.now();
  if (!force && now - received.posted < PROGRESS_MS) return;
  received.posted = now;
  let loaded = 0;
  for (const n of received.files.values()) loaded += n;
  self.postMessage({ type: 'progress', loaded, total: received.total });
}

/** A file's bytes, read as they arrive so that the page can show how far the download is. */
async function download(url, what) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${what}: HTTP ${response.status} for ${url}`);
  if (!response.body) return response.arrayBuffer();
  const reader = response.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
    count(url, size);
  }
  count(url, size, true);
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out.buffer;
}

async function loadWeights(url) {
  const weights = dequantize(await download(url, 'model weights'));
  performance.mark('mercury-weights-ready');
  return weights;
}

// The steps of a cold start, for benchmarks/bench_model_ready.py: worker start, weights, session, warm.
async function init(msg) {
  performance.mark('mercury-worker-start');
  env.allowLocalModels = true;
  env.allowRemoteModels = false;
  env.useBrowserCache = false; // the HTTP cache suffices; a stale Cache Storage copy could hide a rebuilt model
  env.useWasmCache = false; // else transformers.js keeps its own copy of the .wasm for the page's lifetime
  // A path (e.g. '/bundle/models/'), not an http URL: v4 silently skips local files given a full URL.
  env.localModelPath = msg.modelsPath;
  received.total = Number.isInteger(msg.download) ? msg.download : null;
  const wasm = env.backends.onnx.wasm;
  const wasmUrl = new URL('../vendor/ort-wasm-simd-threaded.wasm', import.meta.url).href;
  wasm.wasmPaths = { mjs: new URL('../vendor/ort-wasm-simd-threaded.mjs', import.meta.url).href, wasm: wasmUrl };
  // onnxruntime-web fetches the wasm itself, compiling it while it streams in (and the browser can keep the
  // compiled code): its bytes count in the progress once it has arrived
  new PerformanceObserver((list, observer) => {
    const entry = list.getEntries().find((e) => e.name === wasmUrl);
    if (!entry) return;
    observer.disconnect();
    count(wasmUrl, entry.decodedBodySize, true);
  }).observe({ type: 'resource', buffered: true });
  wasm.numThreads = self.crossOriginIsolated ? Math.max(1, Math.min(4, navigator.hardwareConcurrency || 1)) : 1;
  wasm.proxy = false;
  pooling = msg.pooling || 'mean';
  // Same float32 math as the Python build (no fused int8 kernel): identical vectors.
  const options = { extra: { session: { disable_quant_qdq: '1' } } };
  if (msg.weights) {
    // The graph was optimized at export (page_model.py): optimizing it again here slowed each start.
    const bytes = loadWeights(msg.weights).then((w) => w.data.buffer);
    bytes.catch(() => {}); // reported by the session creation, which awaits it
    options.graphOptimizationLevel = 'disabled';
    options.externalData = [{ path: EXTERNAL_NAME, data: new PendingData(bytes) }];
  }
  const progress_callback = (p) => { // transformers.js's own fetches: the graph, the tokenizer, the configs
    if (p.status === 'progress' && Number.isFinite(p.loaded)) count(p.file, p.loaded);
  };
  extractor = await pipeline('feature-extraction', msg.modelName,
    { dtype: 'q8', device: 'wasm', session_options: options, progress_callback });
  performance.mark('mercury-session-ready');
  // Fail now rather than at the first selection if the tokenizer or model did not load.
  await extractor(['warm up'], { pooling, normalize: true });
}

async function embed(msg) {
  const out = await extractor(msg.texts, { pooling, normalize: true });
  const data = out.data instanceof Float32Array ? out.data : Float32Array.from(out.data);
  const dim = out.dims[out.dims.length - 1];
  self.postMessage({ type: 'result', id: msg.id, data, dim }, [data.buffer]);
}

/**
 * The contextual vector of every token of each text (its last hidden state, [CLS] and [SEP] left out) and
 * the span of its word (tokens.js): each text run alone, as tokens.py runs a row. Null for a text whose
 * word spans cannot be told or that the model truncates.
 */
async function tokens(msg) {
  const rows = [];
  const transfer = [];
  const tokenize = (text) => extractor.tokenizer.tokenize(text);
  for (const text of msg.texts) {
    const spans = tokenSpans(text, tokenize(text), tokenize);
    const out = spans && await extractor(text, { pooling: 'none', normalize: false });
    const [, length, dim] = out ? out.dims : [0, 0, 0];
    if (!spans || length !== spans.length / 2 + 2) {
      rows.push(null);
      continue;
    }
    const all = out.data instanceof Float32Array ? out.data : Float32Array.from(out.data);
    const vectors = all.slice(dim, (length - 1) * dim);
    rows.push({ spans, vectors });
    transfer.push(spans.buffer, vectors.buffer);
  }
  self.postMessage({ type: 'tokens', id: msg.id, rows }, transfer);
}

function message(err) {
  return String(err && err.message ? err.message : err);
}

let chain = Promise.resolve();
self.onmessage = (event) => {
  const msg = event.data;
  // Strictly one message at a time, in order.
  chain = chain.then(async () => {
    if (msg.type === 'init') {
      try {
        await init(msg);
        self.postMessage({ type: 'ready' });
      } catch (err) {
        self.postMessage({ type: 'failed', error: message(err) });
      }
    } else if (msg.type === 'embed' || msg.type === 'tokens') {
      try {
        await (msg.type === 'embed' ? embed(msg) : tokens(msg));
      } catch (err) {
        self.postMessage({ type: 'error', id: msg.id, error: message(err) });
      }
    }
  });
};
