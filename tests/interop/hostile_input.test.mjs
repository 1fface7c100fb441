// Issue 14 defects 5-8 end to end, as a hostile or careless client meets them: the files of a
// fresh embedded catalog under umask 000, `tarn delete --where 'name > 5'` (exit 2, nothing
// deleted, embedded and remote), and against a real `tarn serve`: a bearer token without the
// "Bearer " scheme, a validly signed token whose client is not in the catalog (a restored
// backup), duplicate JSON keys, predicates of another type family, error bodies that name no
// server path, and counts that cover only what a pattern-restricted reader may see.
// Loopback only; bounded in time.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';
import { startServe, tarnEnv } from './tarn_process.mjs';
import { api, mintToken } from './hostile_util.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('hostile_input');
const OWNER_ID = 'tarn_hostileinputowner00';
const OWNER_SECRET = 'hostile-input-test-owner-secret-0123456789';
const D = 'acme.sales.people';

// `tarn ...args --catalog target` under `umask` (a shell sets it, then execs tarn).
function run(target, args, { umask = '022', env = {} } = {}) {
  const r = spawnSync('/bin/sh', ['-c', `umask ${umask} && exec "$0" "$@"`, bin, ...args, '--catalog', target], {
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: tarnEnv(OWNER_ID, OWNER_SECRET, env),
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function ok(target, args, opts) {
  const r = run(target, [...args, '--json'], opts);
  assert.equal(r.code, 0, `tarn ${args.join(' ')}: ${r.err}`);
  return r.out.trim() ? JSON.parse(r.out.trim().split('\n').pop()) : null;
}
const lastError = (r) => JSON.parse(r.err.trim().split('\n').pop()).error;

function seed(target, opts) {
  ok(target, ['workspace', 'create', 'acme'], opts);
  ok(target, ['collection', 'create', 'acme.sales'], opts);
  ok(target, ['dataset', 'create', D, '--schema', 'id INT64, name VARCHAR'], opts);
  const csv = path.join(dir, 'people.csv');
  fs.writeFileSync(csv, 'id,name\n1,10\n2,7\n3,x\n');
  ok(target, ['append', D, csv], opts);
}
const rowCount = (target) => run(target, ['scan', D, '--json']).out.trim().split('\n').filter(Boolean).length;

test('a fresh embedded catalog under umask 000: files 0600, directories 0700', () => {
  const cat = path.join(dir, 'umask000', 'catalog');
  seed(cat, { umask: '000' });
  const modes = [];
  const walk = (p) => {
    const st = fs.lstatSync(p);
    modes.push([path.relative(dir, p), st.isDirectory(), st.mode & 0o777]);
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) walk(path.join(p, e));
  };
  walk(path.join(dir, 'umask000'));
  assert.ok(modes.some(([p]) => p.endsWith('catalog.db')), JSON.stringify(modes));
  assert.ok(modes.some(([p]) => p.endsWith('.parquet')), JSON.stringify(modes));
  for (const [p, isDir, mode] of modes) {
    assert.equal(mode, isDir ? 0o700 : 0o600, `${p}: ${mode.toString(8)}`);
  }
});

test("delete --where 'name > 5' on a VARCHAR is exit 2 and deletes nothing (embedded)", () => {
  const cat = path.join(dir, 'embedded');
  seed(cat);
  const r = run(cat, ['delete', D, '--where', 'name > 5', '--json']);
  assert.equal(r.code, 2, r.err);
  const e = lastError(r);
  assert.equal(e.code, 'predicate_type_mismatch');
  assert.equal(e.column, 'name');
  assert.equal(e.column_type, 'VARCHAR');
  assert.equal(e.literal_type, 'number');
  assert.equal(rowCount(cat), 3);
  assert.equal(run(cat, ['scan', D, '--where', "id = '1'"]).code, 2);
  // Written in the column's own type family it works: '7' and 'x' sort after '5' as text.
  assert.equal(ok(cat, ['delete', D, '--where', "name > '5'"]).deleted_records, 2);
});

let serve = null;
after(async () => {
  if (serve) await serve.stop();
});

// A request with the owner's (or another) bearer; a body is sent as JSON text.
const http = (method, p, { token, headers = {}, body } = {}) =>
  api(serve.url, token, method, p, body, {
    headers: body !== undefined ? { 'Content-Type': 'application/json', ...headers } : headers,
  });
const bearer = (id, secret) => mintToken(serve.url, id, secret);

test('tarn serve: hostile inputs of defects 5-8', async () => {
  const served = path.join(dir, 'served');
  const backup = path.join(dir, 'served-backup');
  const start = async (catalog) => {
    serve = await startServe({ bin, catalog, logPath: path.join(dir, `${path.basename(catalog)}.log`), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET });
  };
  // The first start makes the signing key; a copy of the catalog then is a "backup" that
  // shares the key but knows none of the clients created later.
  await start(served);
  await serve.stop();
  fs.cpSync(served, backup, { recursive: true });
  await start(served);
  const url = serve.url;
  seed(url);
  const owner = await bearer(OWNER_ID, OWNER_SECRET);
  const d = '/v1/workspaces/acme/collections/sales/datasets/people';

  // 8: the Authorization header must be "Bearer <token>".
  assert.equal((await http('GET', '/v1/whoami', { token: owner })).status, 200);
  for (const value of [owner, `Token ${owner}`, `Bearer${owner}`]) {
    const r = await http('GET', '/v1/whoami', { headers: { Authorization: value } });
    assert.equal(r.status, 401, r.text);
    assert.equal(r.json.error.reason, 'not_bearer');
  }

  // 8: duplicate keys, at the top and nested, are 400 malformed_json; nothing happens.
  for (const [p, body, field] of [
    ['/v1/workspaces', '{"name":"evil1","name":"evil2"}', '/name'],
    [`${d}/delete`, '{"where":"id = 1","meta":{"message":"a","message":"b"}}', '/meta/message'],
    ['/v1/commits', '{"parts":[{"dataset":"acme.sales.people","added":[],"added":[]}]}', '/parts/0/added'],
  ]) {
    const r = await http('POST', p, { token: owner, body });
    assert.equal(r.status, 400, `${p}: ${r.text}`);
    assert.equal(r.json.error.code, 'malformed_json');
    assert.equal(r.json.error.field, field);
  }
  assert.equal((await http('GET', '/v1/workspaces/evil1', { token: owner })).status, 404);
  assert.equal(rowCount(url), 3);

  // 6: a literal of another type family is 422 before anything is planned or written.
  const del = await http('POST', `${d}/delete`, { token: owner, body: JSON.stringify({ where: 'name > 5', meta: {} }) });
  assert.equal(del.status, 422, del.text);
  assert.equal(del.json.error.code, 'predicate_type_mismatch');
  assert.equal(del.json.error.column, 'name');
  for (const route of ['scan', 'plan']) {
    const r = await http('GET', `${d}/${route}?where=${encodeURIComponent("id = '1'")}`, { token: owner });
    assert.equal(r.status, 422, `${route}: ${r.text}`);
    assert.equal(r.json.error.code, 'predicate_type_mismatch');
  }
  const cli = run(url, ['delete', D, '--where', 'name > 5', '--json']);
  assert.equal(cli.code, 2, cli.err);
  assert.equal(lastError(cli).code, 'predicate_type_mismatch');
  assert.equal(rowCount(url), 3);

  // 7: an error about a path outside the warehouse names no server path.
  const outside = await http('POST', `${d}/files`, {
    token: owner,
    body: JSON.stringify({ paths: ['/etc/passwd'], meta: {} }),
  });
  assert.ok(outside.status >= 400 && outside.status < 500, outside.text);
  assert.ok(!outside.text.includes(served), outside.text);
  assert.ok(!outside.text.includes(fs.realpathSync(served)), outside.text);

  // 7: counts cover only what a pattern-restricted reader may see.
  ok(url, ['dataset', 'create', 'acme.sales.secret', '--schema', 'id INT64']);
  ok(url, ['collection', 'create', 'acme.hr']);
  const t = ok(url, ['token', 'create', '--workspace', 'acme', '--role', 'reader', '--pattern', 'sales.people']);
  const reader = await bearer(t.client_id, t.client_secret);
  const ws = await http('GET', '/v1/workspaces/acme', { token: reader });
  assert.equal(ws.status, 200, ws.text);
  assert.equal(ws.json.collection_count, 1);
  const coll = await http('GET', '/v1/workspaces/acme/collections/sales', { token: reader });
  assert.equal(coll.json.dataset_count, 1);
  const colls = await http('GET', '/v1/workspaces/acme/collections', { token: reader });
  assert.deepEqual(colls.json.collections.map((c) => [c.name, c.dataset_count]), [['sales', 1]]);
  assert.equal((await http('GET', '/v1/workspaces/acme/collections/sales', { token: owner })).json.dataset_count, 2);
  const shown = run(url, ['collection', 'show', 'acme.sales', '--json'], { env: { TARN_CLIENT_ID: t.client_id, TARN_CLIENT_SECRET: t.client_secret } });
  assert.equal(shown.code, 0, shown.err);
  assert.equal(JSON.parse(shown.out).datasets, 1);

  // 5: a validly signed token whose client is not in the catalog (the backup predates it).
  await serve.stop();
  await start(backup);
  assert.equal((await http('GET', '/v1/whoami', { token: owner })).status, 200);  // the owner is in both
  const ghost = await http('GET', '/v1/whoami', { token: reader });
  assert.equal(ghost.status, 401, ghost.text);
  assert.equal(ghost.json.error.reason, 'unknown_client');
});
