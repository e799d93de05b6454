/**
 * The server answers three fixed names and its API; no request reaches a file. Each path
 * below is sent byte for byte (node:http does not normalise a request's path): dot segments,
 * absolute paths, percent-encoded separators and dots, backslashes, and API parameters that
 * hold paths. None may answer 200 with anything but the API's own JSON, and none may carry
 * a byte of /etc/passwd or of the repository's package.json.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { fixturePath } from '../helpers/fixtures.ts';
import type { RunningViewer } from '../../src/view/server.ts';
import { viewerOn } from './viewHelpers.ts';

let viewer: RunningViewer;
before(async () => {
  viewer = (await viewerOn([fixturePath('lmeval/bigrefactor-2023-06')])).viewer;
});
after(() => viewer.close());

function get(path: string, host = `127.0.0.1:${viewer.port}`): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: viewer.port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const TRAVERSALS = [
  '/../../../../etc/passwd',
  '/..%2f..%2f..%2f..%2fetc%2fpasswd',
  '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
  '/%2E%2E%2F%2E%2E%2Fpackage.json',
  '/app.js/../../package.json',
  '/app.js%2f..%2f..%2fpackage.json',
  '/etc/passwd',
  '//etc/passwd',
  '/%2fetc%2fpasswd',
  '/..\\..\\package.json',
  '/%5c..%5c..%5cpackage.json',
  '/package.json',
  '/dist/view/app.js',
  '/src/view/server.ts',
  '/api/../package.json',
  '/api/%2e%2e/package.json',
  '/api/runs/../../package.json',
  '/api/runs%2f..%2f..%2fpackage.json',
  '/api/item?s=../../etc/passwd&run=x&task=y&doc=0',
  '/api/item?s=%2Fetc%2Fpasswd&run=x&task=y&doc=0',
  '/api/items?s=0&run=..%2F..%2Fetc%2Fpasswd&task=boolq-seq2seq',
  '/api/items?s=0&run=lmeval-a6a1045467dd805e&task=..%2F..%2Fpackage.json',
  '/api/item?s=0&run=lmeval-a6a1045467dd805e&task=boolq-seq2seq&doc=..%2F..%2Fpackage.json',
  '/api/table?s=0%2F..%2F..',
  '/api/summary?s=-1',
  '/api/summary?s=1',
  '/api/compare?a=0&b=/etc/passwd',
];

test('path traversal: dot segments, absolute paths and encoded separators reach no file', async () => {
  for (const path of TRAVERSALS) {
    const { status, body } = await get(path);
    assert.ok(status === 400 || status === 404, `${path}: status ${status}`);
    assert.doesNotMatch(body, /root:|"name": ?"lmaudit"|"devDependencies"/, path);
    assert.ok(JSON.parse(body).error.length > 0, path);
  }
});

test('the three fixed names and the API answer; another Host is refused', async () => {
  assert.equal((await get('/')).status, 200);
  assert.equal((await get('/app.js')).status, 200);
  assert.equal((await get('/app.css')).status, 200);
  assert.equal((await get('/api/runs')).status, 200);
  assert.equal((await get('/api/summary?s=0')).status, 200);
  // A request meant for another site (DNS rebinding) is refused even with a valid path.
  assert.equal((await get('/api/runs', 'evil.example')).status, 421);
  assert.equal((await get('/api/runs', `evil.example:${viewer.port}`)).status, 421);
});

test('a bad parameter is a 400 naming the parameter, never a stack or a path of this machine', async () => {
  const { status, body } = await get('/api/items?s=0&run=lmeval-a6a1045467dd805e&task=boolq-seq2seq&sort=prompt;DROP');
  assert.equal(status, 400);
  assert.deepEqual(JSON.parse(body), { error: 'cannot sort by "prompt;DROP"' });
  const flip = await get('/api/items?s=0&run=lmeval-a6a1045467dd805e&task=boolq-seq2seq&flip=0,99');
  assert.deepEqual([flip.status, JSON.parse(flip.body)], [400, { error: 'flip: no reading 99 (this task has 6)' }]);
  const meta = await get("/api/items?s=0&run=lmeval-a6a1045467dd805e&task=boolq-seq2seq&meta=x'%20OR%201=1&mv=1");
  assert.deepEqual([meta.status, JSON.parse(meta.body)], [400, { error: 'no metadata field "x\' OR 1=1" in these documents' }]);
});
