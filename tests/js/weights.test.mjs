// weights.js against onnxruntime: weights files written by weights_fixture.py at every run ($PYTHON, else the
// checkout's .venv, else python3), whose float32 values must come out bit for bit as onnxruntime's
// DequantizeLinear gives them (and, for the shipped model, as page_model.read_weights gives them).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { repo, runFixture, scratchDir } from './fixture.mjs';

import { EXTERNAL_NAME, dequantize } from '../../site_template/app/assist/weights.js';

const dir = scratchDir('weights-');
runFixture('weights_fixture.py', dir);

function bytes(path) {
  const b = readFileSync(path);
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
}

test('every layout dequantizes to the bits of onnxruntime', () => {
  const got = dequantize(bytes(join(dir, 'cases.weights')));
  assert.equal(got.file, EXTERNAL_NAME);
  assert.deepEqual(Buffer.from(got.data), readFileSync(join(dir, 'cases.f32')));
});

test('the shipped model: the float32 weights Python computes', { skip: !existsSync(join(dir, 'model.f32')) && 'no shipped model (make model)' }, () => {
  const model = join(repo, 'mercury_static', 'model', 'page', 'model_quantized.weights');
  const got = dequantize(bytes(model));
  assert.ok(Buffer.from(got.data).equals(readFileSync(join(dir, 'model.f32'))));
});

test('a file of another format or version is refused, naming what it is', () => {
  const file = (header) => {
    const json = Buffer.from(JSON.stringify(header));
    const out = Buffer.alloc(4 + json.length);
    out.writeUInt32LE(json.length, 0);
    json.copy(out, 4);
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.length);
  };
  assert.throws(() => dequantize(file({ format: 'mercury-static/weights', version: 2, file: EXTERNAL_NAME, bytes: 0, tensors: [] })),
    /^Error: model weights: field 'version': unsupported version 2 of mercury-static\/weights \(this page reads version 1\)$/);
  assert.throws(() => dequantize(file({ format: 'other' })), /model weights: field 'format': "other" is not 'mercury-static\/weights'/);
  assert.throws(() => dequantize(new Uint8Array([9, 0, 0, 0, 1, 2]).buffer), /not a weights file|out of bounds|Invalid/);
});
