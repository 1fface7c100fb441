// Listings that page (issue 20): a real `tarn serve`; snapshots, the files of a snapshot (by
// path, GET .../plan's end line), the change feed (by snapshots, next_from) and the audit log
// walked page by page with `limit`, `after` and `before`, over HTTP (following next_after /
// next_before) and with the CLI (`--limit`, `--after`, `--before`, the cursor taken from the last
// element of the --json array), both equal to the unpaged listing; bad limits and cursors are 422
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

// The NDJSON of GET .../plan: the files and the end line.
async function plan(q) {
  const r = await get(`${DP}/plan${q}`);
  assert.equal(r.status, 200, r.text);
  const lines = r.text.trim().split('\n').map((l) => JSON.parse(l));
  const end = lines.pop();
  assert.equal(end.end, true, r.text);
  assert.equal(end.files, lines.length);
  return { paths: lines.map((l) => l.file.path), end };
}

test('the files of a snapshot walked by path over HTTP and with the CLI equal the plan', T, async () => {
  const all = await plan('');
  assert.equal(all.paths.length, 7);
  assert.equal(all.end.next_after, undefined, 'an unpaged plan has no cursor');
  const want = [...all.paths].sort();
  let got = [];
  let q = '?limit=3';
  for (;;) {
    const page = await plan(q);
    got.push(...page.paths);
    if (page.end.next_after === undefined) break;
    assert.equal(page.end.next_after, page.paths.at(-1));
    q = `?limit=3&after=${encodeURIComponent(page.end.next_after)}`;
  }
  assert.deepEqual(got, want);
  got = [];
  q = `?limit=2&before=${encodeURIComponent('\x7f')}`;
  for (;;) {
    const page = await plan(q);
    got.unshift(...page.paths);
    if (page.end.next_before === undefined) break;
    assert.equal(page.end.next_before, page.paths[0]);
    q = `?limit=2&before=${encodeURIComponent(page.end.next_before)}`;
  }
  assert.deepEqual(got, want);
  // With a predicate and at an older snapshot: the pages of what the plan would say.
  const early = await plan('?snapshot_id=3&where=id%20%3E%201');
  const paged = await plan('?snapshot_id=3&where=id%20%3E%201&limit=2');
  assert.deepEqual(paged.paths, [...early.paths].sort().slice(0, 2));
  assert.equal(paged.end.next_after, paged.paths[1]);

  // The CLI: --json arrays in path order, the next --after said on stderr for a full page.
  got = [];
  let args = ['--limit', '3'];
  for (;;) {
    const page = cli.json(serve.url, ['files', D, ...args]);
    got.push(...page.map((f) => f.path));
    if (page.length < 3) break;
    args = ['--limit', '3', '--after', page.at(-1).path];
  }
  assert.deepEqual(got, want);
  const human = cli.run(serve.url, ['files', D, '--limit', '2', '--before', want[3]]);
  assert.equal(human.code, 0, human.err);
  assert.ok(human.err.includes(`more files: --before ${want[1]}`), human.err);
  assert.equal(human.out.trim().split('\n').length, 3, human.out);  // the heading, two files
  const before = cli.json(serve.url, ['files', D, '--limit', '2', '--before', want[3]]);
  assert.deepEqual(before.map((f) => f.path), want.slice(1, 3));
});

test('the change feed walked in pages of snapshots equals the whole range', T, async () => {
  const whole = await get(`${DP}/changes?from=0`);
  assert.equal(whole.status, 200, whole.text);
  assert.equal(whole.json.to_snapshot_id, 7);
  assert.equal(whole.json.next_from, undefined);
  const added = [];
  const ranges = [];
  let from = 0;
  for (;;) {
    const r = await get(`${DP}/changes?from=${from}&limit=3`);
    assert.equal(r.status, 200, r.text);
    ranges.push([r.json.from_snapshot_id, r.json.to_snapshot_id]);
    added.push(...r.json.added_files.map((f) => f.path));
    if (r.json.next_from === undefined) break;
    assert.equal(r.json.next_from, r.json.to_snapshot_id);
    from = r.json.next_from;
  }
  assert.deepEqual(ranges, [[0, 3], [3, 6], [6, 7]]);
  assert.deepEqual(added, whole.json.added_files.map((f) => f.path));
  // The CLI: --limit pages, next_from in --json, the next --from in the table's heading.
  const page = cli.json(serve.url, ['changes', D, '--from', '2', '--limit', '2']);
  assert.equal(page.to_snapshot_id, 4);
  assert.equal(page.next_from, 4);
  assert.equal(page.added_files.length, 2);
  const human = cli.ok(serve.url, ['changes', D, '--from', '5', '--limit', '1']);
  assert.match(human, /changes in \(5, 6\]; more: --from 6/);
  assert.equal(cli.json(serve.url, ['changes', D, '--from', '0']).added_files.length, 7);
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
    [`${DP}/plan?limit=0`, 'limit'],
    [`${DP}/plan?limit=10001`, 'limit'],
    [`${DP}/plan?limit=x`, 'limit'],
    [`${DP}/changes?from=0&limit=0`, 'limit'],
    [`${DP}/changes?from=0&limit=10001`, 'limit'],
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
  for (const args of [['files', D, '--limit', '0'], ['files', D, '--limit', 'x'],
    ['changes', D, '--from', '0', '--limit', '10001']]) {
    const refused = cli.fails(serve.url, args, null, 2);
    assert.equal(cli.jsonError(refused).field, 'limit', refused.err);
  }
});

test('a query parameter the route does not read is 422 unknown_parameter naming it', T, async () => {
  for (const route of [`${DP}/snapshots?limt=2`, `${DP}/changes?from=0&limt=2`,
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
