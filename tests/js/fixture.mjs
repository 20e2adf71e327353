// The Python fixtures of the Node tests, run at every test run with this checkout on PYTHONPATH ($PYTHON,
// else the checkout's .venv, else python3), so that each follows the Python module it mirrors.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '..', '..');
const venvPython = join(repo, '.venv', 'bin', 'python');
const python = process.env.PYTHON || (existsSync(venvPython) ? venvPython : 'python3');

/** Run tests/js/`script` with `args`; its standard output. */
export function runFixture(script, ...args) {
  return execFileSync(python, [join(here, script), ...args], {
    env: { ...process.env, PYTHONPATH: repo }, encoding: 'utf8', maxBuffer: 64 << 20,
  });
}

/** A new temporary folder, removed after the calling file's tests. */
export function scratchDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
