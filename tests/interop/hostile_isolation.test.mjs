// Issue 14's isolation attack against a real `tarn serve`, as a hostile client would make it:
// a writer of workspace wa registers the Parquet object of a dataset of workspace wb through
// POST .../files (its key, a relative spelling, file:// and an absolute path) and through
// POST /v1/commits parts[].added[].path, and a reader of wa then scans. Plus the commit that
// claims a million rows of a file that does not exist, a symlink under wa's own prefix to wb's
// file, and a location granted by wa's owner (which a writer cannot grant).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';
import { runTarn, startServe, tarnEnv } from './tarn_process.mjs';
import { api, mintToken } from './hostile_util.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('hostile_isolation');
const catalog = path.join(dir, 'catalog');
const OWNER_ID = 'tarn_hostileisolationowner';
const OWNER_SECRET = 'hostile-isolation-owner-secret-0123456789';
const A = '/v1/workspaces/wa/collections/c/datasets/d';
const B = '/v1/workspaces/wb/collections/c/datasets/secret';

let serve = null;
let owner = '';
let writerA = '';
let readerA = '';
let ownerA = '';
let bFile = null; // { path, record_count, file_size_bytes }
let aUuid = '';
let bUuid = '';
let root = '';

const bearer = (clientId, secret) => mintToken(serve.url, clientId, secret);
// A request with `token`; a body is sent as JSON.
const call = (method, url, token, body) => api(serve.url, token, method, url, body);

async function tokenFor(workspace, role) {
  const t = await call('POST', '/v1/tokens', owner, { workspace, role });
  assert.equal(t.status, 200, t.text);
  return bearer(t.json.client_id, t.json.client_secret);
}

// Nothing of wb and nothing of the server's disk layout reaches a refusal.
function assertQuiet(r, what) {
  assert.equal(r.text.includes(root), false, `${what}: the warehouse root leaked: ${r.text}`);
  assert.equal(r.text.includes('wb'), false, `${what}: wb named: ${r.text}`);
  assert.equal(r.text.includes('secret'), false, `${what}: the dataset named: ${r.text}`);
}

function commitAdded(token, added) {
  return call('POST', '/v1/commits', token, { parts: [{ dataset: 'wa.c.d', operation: 'add_files', added: [added] }] });
}

before(async () => {
  serve = await startServe({ bin, catalog, logPath: path.join(dir, 'serve.log'), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET });
  owner = await bearer(OWNER_ID, OWNER_SECRET);
  const env = tarnEnv(OWNER_ID, OWNER_SECRET);
  for (const args of [
    ['workspace', 'create', 'wa'], ['workspace', 'create', 'wb'],
    ['collection', 'create', 'wa.c'], ['collection', 'create', 'wb.c'],
    ['dataset', 'create', 'wa.c.d', '--schema', 'id INT64 NOT NULL, v VARCHAR'],
    ['dataset', 'create', 'wb.c.secret', '--schema', 'id INT64 NOT NULL, v VARCHAR'],
  ]) {
    const r = runTarn(bin, serve.url, [...args, '--json'], env);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
  }
  const csv = path.join(dir, 'b.csv');
  fs.writeFileSync(csv, 'id,v\n1,b-only-1\n2,b-only-2\n');
  const r = runTarn(bin, serve.url, ['append', 'wb.c.secret', csv, '--json'], env);
  assert.equal(r.code, 0, r.err);
  const plan = await call('GET', `${B}/plan`, owner);
  assert.equal(plan.status, 200, plan.text);
  bFile = JSON.parse(plan.text.trim().split('\n')[0]).file;
  aUuid = (await call('GET', A, owner)).json.uuid;
  bUuid = (await call('GET', B, owner)).json.uuid;
  root = fs.realpathSync(path.join(catalog, 'warehouse'));
  assert.ok(fs.existsSync(path.join(root, bFile.path)), bFile.path);
  writerA = await tokenFor('wa', 'writer');
  readerA = await tokenFor('wa', 'reader');
  ownerA = await tokenFor('wa', 'owner');
});

after(async () => {
  if (serve) await serve.stop();
});

async function scanRowsOfA() {
  const s = await call('GET', `${A}/scan`, readerA);
  assert.equal(s.status, 200, s.text);
  assert.equal(s.text.includes('b-only'), false, 'wb rows served through wa');
  return (await call('GET', A, readerA)).json.total_records;
}

test('a writer of wa cannot register wb\'s Parquet through POST .../files', async () => {
  const tail = bFile.path.slice(`datasets/${bUuid}/`.length);
  for (const p of [
    bFile.path,
    `./${bFile.path}`,
    `datasets/${aUuid}/../${bUuid}/${tail}`,
    `datasets/${aUuid}/data/../../${bUuid}/${tail}`,
    `file://${root}/${bFile.path}`,
    `${root}/${bFile.path}`,
  ]) {
    const r = await call('POST', `${A}/files`, writerA, { paths: [p] });
    assert.equal(r.status, 403, `${p}: ${r.text}`);
    assert.equal(r.json.error.code, 'path_not_owned', p);
    assertQuiet(r, p);
  }
  assert.equal(await scanRowsOfA(), 0);
});

test('a writer of wa cannot register wb\'s Parquet through POST /v1/commits', async () => {
  for (const p of [bFile.path, `file://${root}/${bFile.path}`, `datasets/${aUuid}/../${bUuid}/${bFile.path.slice(`datasets/${bUuid}/`.length)}`]) {
    const r = await commitAdded(writerA, { path: p, record_count: bFile.record_count, file_size_bytes: bFile.file_size_bytes });
    assert.equal(r.status, 403, `${p}: ${r.text}`);
    assert.equal(r.json.error.code, 'path_not_owned', p);
    assertQuiet(r, p);
  }
  assert.equal(await scanRowsOfA(), 0);
});

test('a commit of a file that does not exist, claiming a million rows, is refused', async () => {
  const r = await commitAdded(writerA, { path: `datasets/${aUuid}/data/ghost.parquet`, record_count: 1000000, file_size_bytes: 4096 });
  assert.equal(r.status, 422, r.text);
  assert.equal(r.json.error.code, 'file_not_found');
  assertQuiet(r, 'ghost');
  assert.equal(await scanRowsOfA(), 0);
});

test('a symlink under wa\'s own prefix to wb\'s file is refused', async () => {
  const own = path.join(root, 'datasets', aUuid, 'data');
  fs.mkdirSync(own, { recursive: true });
  fs.symlinkSync(path.join(root, bFile.path), path.join(own, 'link.parquet'));
  const link = `datasets/${aUuid}/data/link.parquet`;
  const c = await commitAdded(writerA, { path: link, record_count: bFile.record_count, file_size_bytes: bFile.file_size_bytes });
  assert.equal(c.status, 422, c.text);
  assert.equal(c.json.error.code, 'not_a_regular_file');
  assertQuiet(c, 'symlink commit');
  const f = await call('POST', `${A}/files`, writerA, { paths: [link] });
  assert.equal(f.status, 422, f.text);
  assert.equal(f.json.error.code, 'not_a_regular_file');
  assert.equal(await scanRowsOfA(), 0);
});

test('files outside wa\'s prefix need a location wa\'s owner granted; add_files answers once', async () => {
  const landing = path.join(root, 'landing', 'wa');
  fs.mkdirSync(landing, { recursive: true });
  fs.copyFileSync(path.join(root, bFile.path), path.join(landing, 'copy.parquet'));
  fs.writeFileSync(path.join(landing, 'notes.txt'), 'not parquet');
  // Before the grant: missing, a directory and not Parquet all get the same answer.
  const answers = new Set();
  for (const p of ['landing/wa/none.parquet', 'landing/wa', 'landing/wa/notes.txt']) {
    const r = await call('POST', `${A}/files`, writerA, { paths: [p] });
    assert.equal(r.status, 403, `${p}: ${r.text}`);
    assert.equal(r.json.error.code, 'path_not_owned');
    answers.add(r.json.error.message.replace(p, '<path>'));
  }
  assert.equal(answers.size, 1, [...answers].join('\n'));
  const byWriter = await call('POST', `${A}/locations`, writerA, { prefix: 'landing/wa' });
  assert.equal(byWriter.status, 403, byWriter.text);
  const intoB = await call('POST', `${A}/locations`, ownerA, { prefix: `datasets/${bUuid}` });
  assert.equal(intoB.status, 422, intoB.text);
  assert.equal(intoB.json.error.code, 'invalid_location');
  const g = await call('POST', `${A}/locations`, ownerA, { prefix: 'landing/wa' });
  assert.equal(g.status, 200, g.text);
  const listed = await call('GET', `${A}/locations`, readerA);
  assert.deepEqual(listed.json.locations.map((l) => l.prefix), ['landing/wa/']);
  const notParquet = await call('POST', `${A}/files`, writerA, { paths: ['landing/wa/notes.txt'] });
  assert.equal(notParquet.json.error.code, 'not_parquet', notParquet.text);
  const added = await call('POST', `${A}/files`, writerA, { paths: ['landing/wa/copy.parquet'] });
  assert.equal(added.status, 200, added.text);
  assert.equal(added.json.added_records, 2);
  // wb cannot then take the same file through a grant of its own (the location is wa's).
  const ownerB = await tokenFor('wb', 'owner');
  const overlap = await call('POST', `${B}/locations`, ownerB, { prefix: 'landing' });
  assert.equal(overlap.status, 409, overlap.text);
  assert.equal(overlap.json.error.code, 'location_in_use');
  const audit = await call('GET', '/v1/audit?workspace=wa', owner);
  assert.ok(audit.json.records.some((r) => r.action === 'dataset.location_grant' && r.outcome === 'ok'), audit.text);
});
