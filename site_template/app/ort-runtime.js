/**
 * The onnxruntime-web module factory, with its 14 MB wasm runtime compiled ahead. The worker starts
 * `precompile()` as soon as it runs, so the runtime is fetched and compiled (streaming: while it
 * downloads, which needs the `application/wasm` MIME type) in parallel with transformers.js and the
 * model downloads; without it onnxruntime fetches the runtime only once the model is in. transformers.js
 * loads this module as onnxruntime's factory (`wasmPaths.mjs`) and the factory instantiates the module
 * compiled here instead of fetching and compiling it again.
 */
import factory from '../vendor/ort-wasm-simd-threaded.mjs';

let compiled = null;

/** Start fetching and compiling the runtime at `url` (idempotent); resolves to a WebAssembly.Module. */
export function precompile(url) {
  if (!compiled) {
    compiled = WebAssembly.compileStreaming(fetch(url, { credentials: 'same-origin' }))
      // a host serving another MIME type: compile after the download instead
      .catch(() => fetch(url, { credentials: 'same-origin' }).then((r) => r.arrayBuffer()).then((b) => WebAssembly.compile(b)));
    compiled.catch(() => {}); // a failure is handled where the runtime is created
  }
  return compiled;
}

/** onnxruntime's factory: the precompiled runtime when there is one, else its own fetch and compile. */
export default async function createRuntime(config) {
  const module = compiled && await compiled.catch(() => null);
  if (!module) return factory(config); // not precompiled, or it failed: onnxruntime reports its own error
  return factory({
    ...config,
    instantiateWasm(imports, done) {
      WebAssembly.instantiate(module, imports).then((instance) => done(instance, module), (err) => {
        setTimeout(() => { throw err; }); // the worker's error event: the page says the model failed
      });
    },
  });
}
