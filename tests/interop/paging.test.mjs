// Listings that page (issue 20): a real `tarn serve`; snapshots and the audit log walked page by
// page with `limit`, `after` and `before`, over HTTP (following next_after / next_before) and
// with the CLI (`--limit`, `--after`, `--before`, the cursor taken from the last element of the
// --json array), both equal to the unpaged listing; bad limits and cursors are 422
// invalid_parameter naming the parameter, and a parameter no route reads is 422
// unknown_parameter naming it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';
import { api, mintToken } from './hostile_util.mjs';
import { startServe, tarnCli } from './tarn_process.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('paging');
const OWNER_ID = 'tarn_pagingtestowner0000';
const OWNER_SECRET = 'paging-test-owner-secret-0123456789abcd';
const D = 'acme.sales.orders';
const DP = '/v1/workspaces/acme/collections/sales/datasets/orders';
const cli = tarnCli(bin, OWNER_ID, OWNER_SECRET);
const T = { timeout: 60_000 };

let serve = null;
let token = '';

before(async () => {
  serve = await startServe({ bin, catalog: path.join(dir, 'served'), logPath: path.join(dir, 'serve.log'),
    ownerId: OWNER_ID, ownerSecret: OWNER_SECRET });
  token = await mintToken(serve.url, OWNER_ID, OWNER_SECRET);
  const csv = path.join(dir, 'rows.csv');
  fs.writeFileSync(csv, 'id,v\n1,a\n2,b\n');
  cli.ok(serve.url, ['workspace', 'create', 'acme']);
  cli.ok(serve.url, ['collection', 'create', 'acme.sales']);
  cli.ok(serve.url, ['dataset', 'create', D, '--schema', 'id INT64, v VARCHAR']);
  for (let i = 0; i < 7; ++i) cli.ok(serve.url, ['append', D, csv]);
});

after(async () => {
  if (serve) await serve.stop();
});

const get = (route) => api(serve.url, token, 'GET', route);

test('snapshots walked over HTTP and with the CLI equal the unpaged listing', T, async () => {
  const all = await get(`${DP}/snapshots`);
  assert.equal(all.status, 200, all.text);
  const ids = all.json.snapshots.map((s) => s.snapshot_id);
  assert.equal(ids.length, 7);
  assert.equal(all.json.next_after, undefined, 'a page shorter than the default limit is the end');

  // HTTP upwards: limit 3 from the start, then after=next_after.
  let got = [];
  let q = '?limit=3';
  for (;;) {
    const r = await get(`${DP}/snapshots${q}`);
    assert.equal(r.status, 200, r.text);
    got.push(...r.json.snapshots.map((s) => s.snapshot_id));
    if (r.json.next_after === undefined) break;
    assert.equal(r.json.next_after, r.json.snapshots.at(-1).snapshot_id);
    q = `?limit=3&after=${r.json.next_after}`;
  }
  assert.deepEqual(got, ids);
  // HTTP downwards: before alone, following next_before.
  got = [];
  q = `?limit=2&before=${ids.at(-1) + 1}`;
  for (;;) {
    const r = await get(`${DP}/snapshots${q}`);
    assert.equal(r.status, 200, r.text);
    got.unshift(...r.json.snapshots.map((s) => s.snapshot_id));
    if (r.json.next_before === undefined) break;
    q = `?limit=2&before=${r.json.next_before}`;
  }
  assert.deepEqual(got, ids);

  // The CLI: the cursor is the last element's snapshot_id; a short page is the end.
  const unpaged = cli.json(serve.url, ['snapshots', D]).map((s) => s.snapshot_id);
  assert.deepEqual(unpaged, ids);
  got = [];
  let args = ['--limit', '3'];
  for (;;) {
    const page = cli.json(serve.url, ['snapshots', D, ...args]);
    got.push(...page.map((s) => s.snapshot_id));
    if (page.length < 3) break;
    args = ['--limit', '3', '--after', String(page.at(-1).snapshot_id)];
  }
  assert.deepEqual(got, ids);
  const between = cli.json(serve.url, ['snapshots', D, '--after', String(ids[1]), '--before',
    String(ids[4])]);
  assert.deepEqual(between.map((s) => s.snapshot_id), ids.slice(2, 4));
});

test('the audit log walked newest first and oldest first equals the unpaged listing', T, async () => {
  const all = await get('/v1/audit?limit=100000');
  assert.equal(all.status, 200, all.text);
  const ids = all.json.records.map((r) => r.id);
  assert.ok(ids.length >= 10, `only ${ids.length} audit rows`);
  // Newest first: the default page, then before=next_before.
  let got = [];
  let q = '?limit=4';
  for (;;) {
    const r = await get(`/v1/audit${q}`);
    assert.equal(r.status, 200, r.text);
    got.unshift(...r.json.records.map((x) => x.id));
    assert.equal(r.json.next_after, undefined);
    if (r.json.next_before === undefined) break;
    q = `?limit=4&before=${r.json.next_before}`;
  }
  assert.deepEqual(got.filter((id) => id <= ids.at(-1)), ids);
  // Oldest first: after=0, then after=next_after.
  got = [];
  q = '?limit=4&after=0';
  for (;;) {
    const r = await get(`/v1/audit${q}`);
    assert.equal(r.status, 200, r.text);
    got.push(...r.json.records.map((x) => x.id));
    if (r.json.next_after === undefined) break;
    q = `?limit=4&after=${r.json.next_after}`;
  }
  assert.deepEqual(got.filter((id) => id <= ids.at(-1)), ids);
  // The CLI, oldest first with --after.
  got = [];
  let args = ['--limit', '4', '--after', '0'];
  for (;;) {
    const page = cli.json(serve.url, ['audit', ...args]);
    got.push(...page.map((x) => x.id));
    if (page.length < 4) break;
    args = ['--limit', '4', '--after', String(page.at(-1).id)];
  }
  assert.deepEqual(got.filter((id) => id <= ids.at(-1)), ids);
});

test('jobs page over HTTP (none here: an empty first page is the end)', T, async () => {
  const r = await get('/v1/jobs?limit=5');
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json.jobs, []);
  assert.equal(r.json.next_after, undefined);
  const bad = await get('/v1/jobs?after=job_none');
  assert.equal(bad.status, 422, bad.text);
  assert.equal(bad.json.error.field, 'after');
  assert.deepEqual(cli.json(serve.url, ['jobs', 'list', '--limit', '5']), []);
});

test('bad limits and cursors are 422 invalid_parameter naming the parameter', T, async () => {
  const cases = [
    [`${DP}/snapshots?limit=0`, 'limit'],
    [`${DP}/snapshots?limit=-1`, 'limit'],
    [`${DP}/snapshots?limit=10001`, 'limit'],
    [`${DP}/snapshots?limit=99999999999999999999999`, 'limit'],
    [`${DP}/snapshots?after=abc`, 'after'],
    [`${DP}/snapshots?before=1.5`, 'before'],
    ['/v1/audit?limit=0', 'limit'],
    ['/v1/audit?limit=100001', 'limit'],
    ['/v1/audit?after=x', 'after'],
    ['/v1/audit?before=', 'before'],
    ['/v1/jobs?limit=0', 'limit'],
    ['/v1/jobs?limit=10001', 'limit'],
  ];
  for (const [route, field] of cases) {
    const r = await get(route);
    assert.equal(r.status, 422, `${route}: ${r.text}`);
    assert.equal(r.json.error.code, 'invalid_parameter', `${route}: ${r.text}`);
    assert.equal(r.json.error.field, field, `${route}: ${r.text}`);
  }
  // The CLI says the same, embedded flags checked before the call.
  const bad = cli.fails(serve.url, ['snapshots', D, '--limit', '0'], null, 2);
  assert.equal(cli.jsonError(bad).field, 'limit', bad.err);
  const notNumber = cli.fails(serve.url, ['snapshots', D, '--after', 'abc'], null, 2);
  assert.equal(cli.jsonError(notNumber).field, 'after', notNumber.err);
});

test('a query parameter the route does not read is 422 unknown_parameter naming it', T, async () => {
  for (const route of [`${DP}/snapshots?limt=2`, `${DP}/changes?from=0&limit=2`,
    '/v1/workspaces?x=1', '/v1/audit?workspace=acme&actors=a', `${DP}?snapshot=1`]) {
    const r = await get(route);
    assert.equal(r.status, 422, `${route}: ${r.text}`);
    assert.equal(r.json.error.code, 'unknown_parameter', `${route}: ${r.text}`);
    const name = route.split('?')[1].split('&').map((p) => p.split('=')[0])
      .find((n) => !['from', 'workspace'].includes(n));
    assert.equal(r.json.error.field, name, `${route}: ${r.text}`);
  }
  // A mutation with one is refused before it runs.
  const r = await api(serve.url, token, 'DELETE', `${DP}?purge=true&force=true`);
  assert.equal(r.status, 422, r.text);
  assert.equal(r.json.error.field, 'force');
  assert.equal((await get(DP)).status, 200);
  assert.doesNotMatch(serve.log(), /"status":500/);
});
