// The upload link of the page (upload.js): read from the fragment once, kept per bundle and annotator, taken
// off the address; the request puts the export at this browser's own key.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { ago, decodeLink, takeLink, uploadRequest } from '../../site_template/app/io/upload.js';

const encode = (obj) => Buffer.from(JSON.stringify(obj)).toString('base64url');
const LINK = { kind: 's3', url: 'http://127.0.0.1:9/collect', prefix: 'round1/alice/', fields: { policy: 'P', 'x-amz-signature': 'S' }, expires: 2e9, annotator: 'alice' };

function fakePrefs() {
  const m = new Map();
  return { get: (k, d = null) => (m.has(k) ? m.get(k) : d), set: (k, v) => m.set(k, v), m };
}

test('decodeLink reads base64url JSON and refuses anything else', () => {
  assert.deepEqual(decodeLink(encode(LINK)), LINK);
  assert.equal(decodeLink('%%%'), null);
  assert.equal(decodeLink(encode({ kind: 'ftp', url: 'x', expires: 1, annotator: 'a' })), null);
});

test('takeLink keeps the link for this bundle and annotator and removes it from the address, record kept', () => {
  const prefs = fakePrefs();
  const loc = { hash: `#collect=${encode(LINK)}&record=r1`, pathname: '/b/', search: '?annotator=alice' };
  let url = null;
  const history = { state: null, replaceState: (_s, _t, u) => { url = u; } };
  const got = takeLink(prefs, 'B1', 'alice', loc, history);
  assert.deepEqual(got, { link: LINK, problem: null });
  assert.equal(url, '/b/?annotator=alice#record=r1');
  // later visits without the fragment find it stored; another annotator's link is refused
  assert.deepEqual(takeLink(prefs, 'B1', 'alice', { hash: '', pathname: '/', search: '' }, history).link, LINK);
  const other = takeLink(prefs, 'B1', 'bob', { hash: `#collect=${encode(LINK)}`, pathname: '/', search: '' }, history);
  assert.equal(other.link, null);
  assert.match(other.problem, /"alice"'s; you are "bob"/);
});

test('uploadRequest posts to the annotator folder under this browser id; WebDAV PUTs ANNOTATOR--CLIENT.json', () => {
  const [url, opts] = uploadRequest(LINK, 'alice', 'c1', '{}\n');
  assert.equal(url, LINK.url);
  assert.equal(opts.method, 'POST');
  assert.deepEqual([...opts.body.keys()], ['policy', 'x-amz-signature', 'key', 'file']); // the file comes last, as S3 wants
  assert.equal(opts.body.get('key'), 'round1/alice/c1.json');
  const [durl, dopts] = uploadRequest({ kind: 'webdav', url: 'http://h/drop/', auth: 'dTpw', expires: 2e9 }, 'alice', 'c1', '{}\n');
  assert.equal(durl, 'http://h/drop/alice--c1.json');
  assert.equal(dopts.method, 'PUT');
  assert.equal(dopts.headers.Authorization, 'Basic dTpw');
});

test('ago', () => {
  assert.equal(ago(0, 30_000), 'just now');
  assert.equal(ago(0, 120_000), '2 min ago');
  assert.equal(ago(0, 3 * 3600_000), '3 h ago');
});
