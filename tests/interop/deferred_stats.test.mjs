// Deferred statistics (docs/design/maintenance.md "Deferred statistics"), embedded and through
// `tarn serve`: `tarn append --defer-stats` registers files with their statistics pending,
// `tarn files` shows stats_state and never prunes them by column bounds, `tarn stats hydrate`
// fills them from the footers; over HTTP a commit says `"stats": "pending"` for a file a client
// wrote itself, the hydrate route is a writer's, strict about its body, and the server's
// housekeeping hydrates on its own (the metric moves). Beside it, the other call that fills in
// what an append left for later: `tarn dataset flush-inlined` / `POST .../inlined/flush` writes
// the files small appends kept in the metastore (inline.max_bytes) out to the warehouse, once.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';
import { api, mintToken } from './hostile_util.mjs';
import { startServe, tarnCli } from './tarn_process.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('deferred_stats');
const OWNER_ID = 'tarn_deferredstatsowner001';
const OWNER_SECRET = 'deferred-stats-owner-secret-0123456789';
const D = 'acme.sales.orders';
const DP = '/v1/workspaces/acme/collections/sales/datasets/orders';
const T = { timeout: 90_000 };

const stops = [];
after(async () => {
  for (const s of stops.reverse()) await s();
});

const { ok, json, fails } = tarnCli(bin, OWNER_ID, OWNER_SECRET);
const eu = path.join(dir, 'eu.csv');
const us = path.join(dir, 'us.csv');
fs.writeFileSync(eu, 'id,region\n1,eu\n2,eu\n3,eu\n');
fs.writeFileSync(us, 'id,region\n10,us\n20,us\n');

function setUp(t) {
  ok(t, ['workspace', 'create', 'acme']);
  ok(t, ['collection', 'create', 'acme.sales']);
  ok(t, ['dataset', 'create', D, '--schema', 'id INT64, region VARCHAR', '--partition', 'region']);
  ok(t, ['append', D, eu, us, '--defer-stats']);
}

function check(t) {
  const pending = json(t, ['files', D]);
  assert.equal(pending.length, 2);
  for (const f of pending) {
    assert.equal(f.stats_state, 'pending');
    assert.deepEqual(f.columns, {});
  }
  assert.match(ok(t, ['files', D]), /stats_state[\s\S]*pending/);
  // No column bound prunes a pending file; its partition value still does.
  assert.equal(json(t, ['files', D, '--where', 'id = 999']).length, 2);
  assert.equal(json(t, ['files', D, '--where', "region = 'us'"]).length, 1);
  assert.equal(ok(t, ['scan', D, '--json']).trim().split('\n').length, 5);

  const r = json(t, ['stats', 'hydrate', D, '--limit', '1']);
  assert.deepEqual([r.files_hydrated, r.files_pending, r.failures], [1, 1, []]);
  assert.match(ok(t, ['stats', 'hydrate', D]), /hydrated 1 file of acme\.sales\.orders; 0 still pending/);
  const done = json(t, ['files', D]);
  for (const f of done) {
    assert.equal(f.stats_state, 'complete');
    assert.ok(f.columns.id, JSON.stringify(f));
  }
  const byRegion = Object.fromEntries(done.map((f) => [f.partition.region, f.columns.id]));
  assert.deepEqual([byRegion.eu.lower, byRegion.eu.upper, byRegion.us.lower, byRegion.us.upper], [1, 3, 10, 20]);
  assert.equal(json(t, ['files', D, '--where', 'id = 999']).length, 0);
  assert.equal(json(t, ['files', D, '--where', 'id = 20']).length, 1);
  fails(t, ['stats', 'hydrate', D, '--limit', '-1'], '', 2);
  fails(t, ['stats', 'hydrate', 'acme.sales.missing'], 'dataset_not_found', 3);
}

test('embedded: append --defer-stats, files, stats hydrate', T, () => {
  const t = path.join(dir, 'embedded');
  setUp(t);
  check(t);
});

test('through tarn serve: the same, a pending file committed over HTTP, roles and housekeeping', T, async () => {
  const catalog = path.join(dir, 'served');
  const server = await startServe({ bin, catalog, logPath: path.join(dir, 'serve.log'), ownerId: OWNER_ID,
    ownerSecret: OWNER_SECRET, args: ['--hydrate-every', '0s'] });
  stops.push(server.stop);
  const url = server.url;
  setUp(url);
  check(url);
  const token = await mintToken(url, OWNER_ID, OWNER_SECRET);

  // A client writes its own file into the dataset's prefix and registers it, stats pending.
  const ds = json(url, ['dataset', 'show', D]);
  const local = path.join(dir, 'mine.parquet');
  ok(url, ['convert', eu, local, '--type', 'id=INT64']);
  const key = `datasets/${ds.uuid}/data/mine.parquet`;
  fs.mkdirSync(path.dirname(path.join(catalog, 'warehouse', key)), { recursive: true });
  fs.copyFileSync(local, path.join(catalog, 'warehouse', key));
  const size = fs.statSync(local).size;
  const file = { path: key, record_count: 3, file_size_bytes: size, partition: ['eu'], stats: 'pending' };
  const part = { dataset: D, operation: 'add_files', added: [file], meta: { author: 'bob' } };
  const both = await api(url, token, 'POST', '/v1/commits',
    { parts: [{ ...part, added: [{ ...file, columns: [{ field_id: 1, value_count: 3, null_count: 0 }] }] }] });
  assert.equal(both.status, 422, both.text);
  const bad = await api(url, token, 'POST', '/v1/commits', { parts: [{ ...part, added: [{ ...file, stats: 'later' }] }] });
  assert.equal(bad.status, 422, bad.text);
  assert.equal(bad.json.error.field, '/parts/0/added/0/stats');
  const committed = await api(url, token, 'POST', '/v1/commits', { parts: [part] });
  assert.equal(committed.status, 200, committed.text);
  const plan = await api(url, token, 'GET', `${DP}/plan`);
  assert.equal(plan.status, 200, plan.text);
  // NDJSON: one planned file per line, then {"end": true, ...}.
  const planned = plan.text.trim().split('\n').map((l) => JSON.parse(l)).filter((l) => !l.end);
  const states = Object.fromEntries(planned.map((f) => [f.file.path, f.file.stats_state]));
  assert.equal(states[key], 'pending');

  // The route: strict body, a writer may, a reader may not.
  const unknown = await api(url, token, 'POST', `${DP}/stats/hydrate`, { limit: 1, hurry: true });
  assert.equal(unknown.status, 422, unknown.text);
  const reader = json(url, ['token', 'create', '--workspace', 'acme', '--role', 'reader']);
  const readerToken = await mintToken(url, reader.client_id, reader.client_secret);
  const refused = await api(url, readerToken, 'POST', `${DP}/stats/hydrate`, {});
  assert.equal(refused.status, 403, refused.text);
  const writer = json(url, ['token', 'create', '--workspace', 'acme', '--role', 'writer']);
  const writerToken = await mintToken(url, writer.client_id, writer.client_secret);
  const h = await api(url, writerToken, 'POST', `${DP}/stats/hydrate`, {});
  assert.equal(h.status, 200, h.text);
  assert.deepEqual([h.json.files_hydrated, h.json.files_pending], [1, 0]);
  const audit = json(url, ['audit', '--workspace', 'acme']);
  assert.ok(audit.some((a) => a.action === 'dataset.stats_hydrate' && a.actor === writer.client_id),
    JSON.stringify(audit.slice(0, 5)));
});

test('tarn serve hydrates on its own every --hydrate-every', T, async () => {
  const catalog = path.join(dir, 'housekeeping');
  const server = await startServe({ bin, catalog, logPath: path.join(dir, 'housekeeping.log'), ownerId: OWNER_ID,
    ownerSecret: OWNER_SECRET, args: ['--hydrate-every', '1s'] });
  stops.push(server.stop);
  const url = server.url;
  setUp(url);
  const token = await mintToken(url, OWNER_ID, OWNER_SECRET);
  const deadline = Date.now() + 30_000;
  let files = [];
  while (Date.now() < deadline) {
    files = json(url, ['files', D]);
    if (files.every((f) => f.stats_state === 'complete')) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  assert.deepEqual(files.map((f) => f.stats_state), ['complete', 'complete']);
  const metrics = await api(url, token, 'GET', '/metrics');
  const m = metrics.text.match(/tarn_housekeeping_files_hydrated_total\{step="hydrate"\} (\d+)/);
  assert.ok(m && Number(m[1]) >= 2, metrics.text.slice(-2000));
  const audit = json(url, ['audit', '--workspace', 'acme']);
  assert.ok(audit.some((a) => a.action === 'housekeeping.hydrate' && a.actor === 'tarn:housekeeping'));
});

// Inlined appends (docs/design/catalog-core.md "Inlined appends"): a dataset whose small
// appends keep their file in the metastore, with one such append.
const S = 'acme.sales.small';
const SP = '/v1/workspaces/acme/collections/sales/datasets/small';

function setUpInlined(t) {
  ok(t, ['workspace', 'create', 'acme']);
  ok(t, ['collection', 'create', 'acme.sales']);
  ok(t, ['dataset', 'create', S, '--schema', 'id INT64, region VARCHAR', '--property', 'inline.max_bytes=65536']);
  ok(t, ['append', S, eu]);
  const files = json(t, ['files', S]);
  assert.equal(files.length, 1);
  return files[0];
}

test('embedded: dataset flush-inlined', T, () => {
  const t = path.join(dir, 'inlined_embedded');
  const file = setUpInlined(t);
  // Kept in the metastore: no object in the warehouse until flushed.
  const object = path.join(t, 'warehouse', file.path);
  assert.ok(!fs.existsSync(object), object);
  assert.equal(ok(t, ['dataset', 'flush-inlined', S]),
    `flushed 1 file (${file.bytes} bytes) of ${S} to the warehouse\n`);
  assert.ok(fs.existsSync(object), object);
  assert.deepEqual(json(t, ['dataset', 'flush-inlined', S]), { dataset: S, files_written: 0, bytes_written: 0 });
  assert.equal(ok(t, ['scan', S, '--json']).trim().split('\n').length, 3);
  fails(t, ['dataset', 'flush-inlined', 'acme.sales.missing'], 'dataset_not_found', 3);
});

test('through tarn serve: POST .../inlined/flush writes each inlined file out once, a writer may', T, async () => {
  const catalog = path.join(dir, 'inlined_served');
  // No housekeeping flush: the test flushes by hand.
  const server = await startServe({ bin, catalog, logPath: path.join(dir, 'inlined.log'), ownerId: OWNER_ID,
    ownerSecret: OWNER_SECRET, args: ['--flush-every', '0s'] });
  stops.push(server.stop);
  const url = server.url;
  const file = setUpInlined(url);
  const object = path.join(catalog, 'warehouse', file.path);
  assert.ok(!fs.existsSync(object), object);
  const token = await mintToken(url, OWNER_ID, OWNER_SECRET);

  // The body takes no fields; a reader may not.
  const unknown = await api(url, token, 'POST', `${SP}/inlined/flush`, { now: true });
  assert.equal(unknown.status, 422, unknown.text);
  assert.equal(unknown.json.error.code, 'unknown_field');
  const reader = json(url, ['token', 'create', '--workspace', 'acme', '--role', 'reader']);
  const readerToken = await mintToken(url, reader.client_id, reader.client_secret);
  const refused = await api(url, readerToken, 'POST', `${SP}/inlined/flush`, {});
  assert.equal(refused.status, 403, refused.text);
  assert.ok(!fs.existsSync(object), object);

  const writer = json(url, ['token', 'create', '--workspace', 'acme', '--role', 'writer']);
  const writerToken = await mintToken(url, writer.client_id, writer.client_secret);
  const first = await api(url, writerToken, 'POST', `${SP}/inlined/flush`, {});
  assert.equal(first.status, 200, first.text);
  assert.deepEqual(first.json, { dataset: S, files_written: 1, bytes_written: file.bytes });
  assert.ok(fs.existsSync(object), object);
  const again = await api(url, writerToken, 'POST', `${SP}/inlined/flush`, {});
  assert.equal(again.status, 200, again.text);
  assert.deepEqual(again.json, { dataset: S, files_written: 0, bytes_written: 0 });
  const audit = json(url, ['audit', '--workspace', 'acme']);
  assert.ok(audit.some((a) => a.action === 'dataset.inline_flush' && a.actor === writer.client_id &&
    a.detail.files_written === 1 && a.detail.bytes_written === file.bytes), JSON.stringify(audit.slice(0, 5)));

  // The CLI through the server (RemoteClient::FlushInlined), for a later append.
  ok(url, ['append', S, us]);
  assert.match(ok(url, ['dataset', 'flush-inlined', S]),
    /^flushed 1 file \(\d+ bytes\) of acme\.sales\.small to the warehouse$/m);
  assert.equal(ok(url, ['scan', S, '--json']).trim().split('\n').length, 5);
});
