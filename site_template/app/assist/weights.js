// The model's weights file (mercury_static/assist/page_model.py writes it): int8 weights, dequantized here.
//
// The page graph names its float32 weights as external data; this rebuilds them with DequantizeLinear's
// formula, float(q - zero) * scale: exact in float64, rounded once to float32, so the bits are the ones
// onnxruntime's constant folding would give (tests/test_page_model.py checks them against Python).

import { WEIGHTS, checkFormat } from '../data/formats.js';

/** The external-data name of the page graph's float32 weights. */
// [[[cog
// from mercury_static.assist.page_model import EXTERNAL_NAME
// from mercury_static.tools.twins import const
// cog.outl(const("EXTERNAL_NAME", EXTERNAL_NAME))
// ]]]
export const EXTERNAL_NAME = 'model_quantized.weights.f32';
// [[[end]]]

/** {file, data}: the external-data name the graph uses and its float32 bytes (a Uint8Array). */
export function dequantize(buffer) {
  const size = new DataView(buffer).getUint32(0, true);
  let header;
  try {
    header = JSON.parse(new TextDecoder().decode(new Uint8Array(buffer, 4, size)));
  } catch {
    throw new Error('model weights: not a weights file');
  }
  checkFormat(header, 'model weights', WEIGHTS);
  if (header.file !== EXTERNAL_NAME) throw new Error(`model weights: for ${header.file}, not ${EXTERNAL_NAME}`);
  const body = 4 + size;
  const out = new Float32Array(header.bytes / 4);
  for (const t of header.tensors) {
    const Values = t.dtype === 'uint8' ? Uint8Array : Int8Array;
    const q = new Values(buffer, body + t.data[0], t.data[1]);
    const scale = new Float32Array(buffer.slice(body + t.scale[0], body + t.scale[0] + t.scale[1]));
    const zero = new Values(buffer, body + t.zero[0], t.zero[1]);
    // Elements in order: `outer` blocks of `channels` channels of `inner` values each (axis = the channel).
    const channels = scale.length === 1 ? 1 : t.shape[t.axis];
    const inner = t.shape.slice(t.axis + 1).reduce((a, b) => a * b, 1) * (channels === 1 ? t.shape[t.axis] : 1);
    const outer = q.length / (channels * inner);
    const dst = out.subarray(t.offset / 4, t.offset / 4 + q.length);
    if (q.length !== t.shape.reduce((a, b) => a * b, 1) || !Number.isInteger(outer)) {
      throw new Error(`model weights: tensor ${t.name} does not match its shape`);
    }
    let i = 0;
    if (inner === 1) {
      // The usual layout (a MatMul weight, one scale per output column): the channel is the innermost index.
      for (let o = 0; o < outer; o++) {
        for (let c = 0; c < channels; c++, i++) dst[i] = (q[i] - zero[c]) * scale[c];
      }
    } else {
      for (let o = 0; o < outer; o++) {
        for (let c = 0; c < channels; c++) {
          const s = scale[c];
          const z = zero[c];
          for (let j = 0; j < inner; j++, i++) dst[i] = (q[i] - z) * s;
        }
      }
    }
  }
  return { file: header.file, data: new Uint8Array(out.buffer) };
}
