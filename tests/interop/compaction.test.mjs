// Compaction through the CLI (docs/design/maintenance.md "Compaction"): 500 small files in five
// partitions with deleted rows, planned (--dry-run writes nothing), compacted, and judged by
// DuckDB reading the files tarn wrote: the same rows with the same row ids (the stored
// _tarn_row_id column) as `tarn scan --row-ids` gave before, one file per partition, the
// snapshot not user-created. sort_aware output is sorted; the same through `tarn serve`; and a
// compaction killed with SIGKILL while it writes leaves the dataset as it was.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { query, quote, scratch } from './duckdb_compare.mjs';
import { startServe, tarnCli, tarnEnv } from './tarn_process.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('compaction');
const OWNER_ID = 'tarn_compactowner000000001';
const OWNER_SECRET = 'compaction-test-owner-secret-01234567';
const REGIONS = ['eu', 'us', 'apac', 'latam', 'mena'];

const stops = [];
after(async () => {
  for (const s of stops.reverse()) await s();
});

const { ok, json } = tarnCli(bin, OWNER_ID, OWNER_SECRET);

// A CSV of rows [from, from + n): region by id, v = (id * 7919) % 1000.
function csv(name, from, n) {
  const file = path.join(dir, name);
  const lines = ['id,region,v'];
  for (let id = from; id < from + n; ++id) lines.push(`${id},${REGIONS[id % 5]},${(id * 7919) % 1000}`);
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

function create(target, name, extra = []) {
  ok(target, ['dataset', 'create', name, '--schema', 'id INT64 NOT NULL, region VARCHAR, v INT64', ...extra]);
}

// `tarn scan --row-ids --json` written to an NDJSON file.
function scanToFile(target, name, file) {
  fs.writeFileSync(file, ok(target, ['scan', name, '--row-ids', '--json']));
  return file;
}

// The live files' absolute paths (an embedded catalog's warehouse).
function livePaths(target, warehouse, name) {
  return json(target, ['files', name]).map((f) => path.join(warehouse, f.path));
}

// DuckDB's rows of `files` against the NDJSON of a scan: {extra, missing} both 0 when equal.
async function sameRows(files, ndjson) {
  const list = '[' + files.map(quote).join(', ') + ']';
  const mine = `(SELECT id, region, v, _tarn_row_id FROM read_parquet(${list}))`;
  const theirs = `(SELECT id, region, v, _tarn_row_id FROM read_json(${quote(ndjson)}, format='newline_delimited',
      columns={id: 'BIGINT', region: 'VARCHAR', v: 'BIGINT', _tarn_row_id: 'BIGINT'}))`;
  const [c] = await query(`SELECT (SELECT count(*) FROM (SELECT * FROM ${mine} EXCEPT ALL SELECT * FROM ${theirs}))::INT AS extra,
      (SELECT count(*) FROM (SELECT * FROM ${theirs} EXCEPT ALL SELECT * FROM ${mine}))::INT AS missing,
      (SELECT count(*) FROM ${mine})::INT AS n`);
  return c;
}

// 100 appends of 10 rows, each split into five partition files: 500 files; then every row with
// v < 60 deleted (vectors in many files, some files emptied).
function fill(target, name) {
  for (let k = 0; k < 100; ++k) ok(target, ['append', name, csv(`p${k}.csv`, k * 10, 10)]);
  ok(target, ['delete', name, '--where', 'v < 60']);
}

test('embedded: 500 small files in five partitions compact to five, rows and row ids kept', async () => {
  const t = path.join(dir, 'embedded');
  ok(t, ['workspace', 'create', 'shop']);
  ok(t, ['collection', 'create', 'shop.ev']);
  create(t, 'shop.ev.events', ['--partition', 'region']);
  fill(t, 'shop.ev.events');
  const warehouse = path.join(t, 'warehouse');
  const files = json(t, ['files', 'shop.ev.events']);
  assert.ok(files.length > 400 && files.length <= 500, `${files.length} live files`);
  assert.ok(files.some((f) => f.deleted_rows > 0));
  const before = scanToFile(t, 'shop.ev.events', path.join(dir, 'before.ndjson'));
  const snapshots = json(t, ['snapshots', 'shop.ev.events']).length;

  // The plan: five outputs, every live file an input, nothing written.
  const plan = json(t, ['compact', 'shop.ev.events', '--dry-run']);
  assert.equal(plan.dry_run, true);
  assert.equal(plan.rule, 'brute');
  assert.equal(plan.outputs.length, 5);
  assert.equal(plan.files_in, files.length);
  assert.deepEqual(plan.outputs.map((o) => o.partition).sort(), REGIONS.map((r) => `region=${r}`).sort());
  for (const o of plan.outputs) assert.match(o.reason, /under 96 MiB/);
  assert.equal(json(t, ['files', 'shop.ev.events']).length, files.length);
  assert.equal(json(t, ['snapshots', 'shop.ev.events']).length, snapshots);
  assert.match(ok(t, ['compact', 'shop.ev.events', '--dry-run']), /would compact shop\.ev\.events \(brute/);

  // An incremental materialized view over it, and the rows new since a snapshot.
  const mv = json(t, ['mv', 'create', 'shop.ev.high', '--sql', 'SELECT id, v FROM shop.ev.events WHERE v > 500']);
  assert.equal(mv.refresh_kind, 'incremental');
  const mark = json(t, ['snapshots', 'shop.ev.events']).at(-1).snapshot_id;
  ok(t, ['append', 'shop.ev.events', csv('late.csv', 5000, 20)]);
  const newSince = `SELECT count(*)::INT AS n FROM tarn_scan('shop.ev.events', added_after := ${mark})`;
  assert.equal(json(t, ['sql', newSince]).n, 20);
  const jobs = json(t, ['jobs', 'list']).length;
  scanToFile(t, 'shop.ev.events', before);

  const done = json(t, ['compact', 'shop.ev.events']);
  assert.equal(done.snapshot_id, snapshots + 2);
  // No trigger fired; the rows a compaction rewrote are not new (the 20 appended still are).
  assert.equal(json(t, ['jobs', 'list']).length, jobs);
  assert.equal(json(t, ['sql', newSince]).n, 20);
  assert.equal(json(t, ['mv', 'refresh', 'shop.ev.high']).mode, 'full');
  const high = 'SELECT count(*)::INT AS n FROM shop.ev.events WHERE v > 500';
  assert.equal(json(t, ['sql', 'SELECT count(*)::INT AS n FROM shop.ev.high']).n, json(t, ['sql', high]).n);
  ok(t, ['append', 'shop.ev.events', csv('later.csv', 6000, 20)]);
  assert.equal(json(t, ['mv', 'refresh', 'shop.ev.high']).mode, 'incremental');
  assert.equal(json(t, ['sql', 'SELECT count(*)::INT AS n FROM shop.ev.high']).n, json(t, ['sql', high]).n);
  ok(t, ['delete', 'shop.ev.events', '--where', 'id >= 6000']);
  assert.equal(done.files_out, 5);
  const after = json(t, ['files', 'shop.ev.events']);
  assert.equal(after.length, 5);
  for (const f of after) {
    assert.equal(f.deleted_rows, 0);
    assert.equal(f.row_ids_stored, true);
  }
  // DuckDB reads the new files: the rows and ids the scan gave before.
  const c = await sameRows(livePaths(t, warehouse, 'shop.ev.events'), before);
  assert.deepEqual(c, { extra: 0, missing: 0, n: c.n });
  assert.equal(c.n, fs.readFileSync(before, 'utf8').trim().split('\n').length);
  // And tarn reads them the same.
  const rescan = scanToFile(t, 'shop.ev.events', path.join(dir, 'after.ndjson'));
  const [same] = await query(`SELECT count(*)::INT AS n FROM (SELECT * FROM read_json(${quote(before)}) EXCEPT ALL SELECT * FROM read_json(${quote(rescan)}))`);
  assert.equal(same.n, 0);
  const last = json(t, ['snapshots', 'shop.ev.events']).find((x) => x.snapshot_id === done.snapshot_id);
  assert.equal(last.operation, 'compact');
  assert.equal(last.user_created, false);
  assert.equal(last.author, 'tester');
  // A second pass has nothing to do, and says so.
  assert.match(ok(t, ['compact', 'shop.ev.events']), /^nothing to compact: no partition/);
  assert.ok(json(t, ['compact', 'shop.ev.events']).nothing_to_do);
  // The integrity sweep finds nothing wrong with stored row ids.
  const fsck = json(t, ['fsck']);
  assert.deepEqual(fsck.findings ?? [], [], JSON.stringify(fsck));
  // Bad input.
  const r = tarnCli(bin, OWNER_ID, OWNER_SECRET).fails(t, ['compact', 'shop.ev.events', '--where', 'v > 3'], 'compaction_filter_not_partition', 2);
  assert.match(r.err, /not a partition source column/);
  tarnCli(bin, OWNER_ID, OWNER_SECRET).fails(t, ['compact', 'shop.ev.events', '--rule', 'fast'], '', 2);
});

test('sort_aware writes each output in the dataset order', async () => {
  const t = path.join(dir, 'sorted');
  ok(t, ['workspace', 'create', 'shop']);
  ok(t, ['collection', 'create', 'shop.ev']);
  create(t, 'shop.ev.sorted', ['--sort', 'v DESC, id']);
  for (let k = 0; k < 20; ++k) ok(t, ['append', 'shop.ev.sorted', csv(`s${k}.csv`, k * 50, 50)]);
  const before = scanToFile(t, 'shop.ev.sorted', path.join(dir, 'sorted-before.ndjson'));
  const done = json(t, ['compact', 'shop.ev.sorted']);
  assert.equal(done.rule, 'sort_aware');
  const paths = livePaths(t, path.join(t, 'warehouse'), 'shop.ev.sorted');
  assert.equal(paths.length, 1);
  const [o] = await query(`SELECT count(*)::INT AS bad FROM (SELECT v, id, lag(v) OVER () AS pv, lag(id) OVER () AS pid
      FROM read_parquet(${quote(paths[0])})) WHERE pv IS NOT NULL AND NOT (pv > v OR (pv = v AND pid < id))`);
  assert.equal(o.bad, 0);
  const c = await sameRows(paths, before);
  assert.deepEqual(c, { extra: 0, missing: 0, n: 1000 });
});

test('through tarn serve: the plan and the pass, owner only', async () => {
  const catalog = path.join(dir, 'served');
  const server = await startServe({ bin, catalog, logPath: path.join(dir, 'serve.log'), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET });
  stops.push(server.stop);
  const u = server.url;
  ok(u, ['workspace', 'create', 'shop']);
  ok(u, ['collection', 'create', 'shop.ev']);
  create(u, 'shop.ev.events', ['--partition', 'region']);
  for (let k = 0; k < 20; ++k) ok(u, ['append', 'shop.ev.events', csv(`r${k}.csv`, k * 10, 10)]);
  ok(u, ['delete', 'shop.ev.events', '--where', 'v < 100']);
  const before = scanToFile(u, 'shop.ev.events', path.join(dir, 'served-before.ndjson'));
  const plan = json(u, ['compact', 'shop.ev.events', '--dry-run']);
  assert.equal(plan.outputs.length, 5);
  assert.equal(plan.snapshot_id, null);
  const done = json(u, ['compact', 'shop.ev.events']);
  assert.equal(done.files_out, 5);
  assert.ok(done.outputs.every((o) => o.path && o.rows === o.input_rows - o.deleted_rows));
  const c = await sameRows(livePaths(u, path.join(catalog, 'warehouse'), 'shop.ev.events'), before);
  assert.deepEqual(c, { extra: 0, missing: 0, n: c.n });
  // The audit row of the request.
  const audit = json(u, ['audit', '--workspace', 'shop']);
  const rows = Array.isArray(audit) ? audit : audit.records ?? audit.audit ?? [];
  assert.ok(rows.some((a) => a.action === 'dataset.compact' && a.outcome === 'ok'), JSON.stringify(audit).slice(0, 2000));
  // A reader may not compact.
  const reader = json(u, ['token', 'create', '--workspace', 'shop', '--role', 'reader']);
  const asReader = tarnCli(bin, reader.client_id, reader.client_secret);
  asReader.fails(u, ['compact', 'shop.ev.events'], 'permission_denied', 5);
});

test('kill -9 while compacting leaves the dataset as it was', async () => {
  const t = path.join(dir, 'killed');
  ok(t, ['workspace', 'create', 'shop']);
  ok(t, ['collection', 'create', 'shop.ev']);
  create(t, 'shop.ev.big');
  for (let k = 0; k < 24; ++k) ok(t, ['append', 'shop.ev.big', csv(`b${k}.csv`, k * 50000, 50000)]);
  const before = json(t, ['files', 'shop.ev.big']).map((f) => f.path).sort();
  const snapshots = json(t, ['snapshots', 'shop.ev.big']);
  const beforeRows = scanToFile(t, 'shop.ev.big', path.join(dir, 'big-before.ndjson'));
  const data = path.join(t, 'warehouse', path.dirname(before[0]));
  const existing = new Set(fs.readdirSync(data));
  // A small memory budget: the compaction writes one file per input, so it is caught writing.
  const child = spawn(bin, ['compact', 'shop.ev.big', '--catalog', t], {
    env: tarnEnv(OWNER_ID, OWNER_SECRET, { TARN_COMPACTION_MEMORY_MB: '1' }),
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + 30_000;
  while (!fs.readdirSync(data).some((n) => !existing.has(n)) && child.exitCode === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 2));
  }
  child.kill('SIGKILL');
  const { signal } = await exited;
  assert.equal(signal, 'SIGKILL', 'the compaction finished before it could be killed');
  // Nothing committed, the same rows, and what it wrote is referenced by nothing.
  assert.deepEqual(json(t, ['snapshots', 'shop.ev.big']), snapshots);
  assert.deepEqual(json(t, ['files', 'shop.ev.big']).map((f) => f.path).sort(), before);
  const afterKill = scanToFile(t, 'shop.ev.big', path.join(dir, 'big-after-kill.ndjson'));
  const [d] = await query(`SELECT (SELECT count(*) FROM (SELECT * FROM read_json(${quote(beforeRows)}) EXCEPT ALL SELECT * FROM read_json(${quote(afterKill)})))::INT
      + (SELECT count(*) FROM (SELECT * FROM read_json(${quote(afterKill)}) EXCEPT ALL SELECT * FROM read_json(${quote(beforeRows)})))::INT AS diff`);
  assert.equal(d.diff, 0);
  const written = fs.readdirSync(data).filter((n) => !existing.has(n));
  assert.ok(written.length >= 1);
  // Run again: it lands.
  const done = json(t, ['compact', 'shop.ev.big']);
  assert.ok(done.snapshot_id);
  const c2 = await sameRows(livePaths(t, path.join(t, 'warehouse'), 'shop.ev.big'), beforeRows);
  assert.deepEqual(c2, { extra: 0, missing: 0, n: 1200000 });
});
