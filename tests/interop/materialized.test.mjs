// Materialized views, commit triggers and jobs end to end, embedded and through `tarn serve`:
// `tarn mv create|replace|show|list|refresh|drop`, `tarn trigger list|set-interval`, `tarn jobs
// list|show|retry|run`. After appends and a delete on the source, the jobs' refreshes make the
// view equal to its SQL over the source at the fired snapshot (judged by an independent DuckDB
// over the source's own files read through `tarn sql`), stacked views refresh a hop at a time,
// a circle is refused with nothing written, rename is refused, drop cleans the triggers, and
// remotely the jobs carry the committing client's id.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { query, quote, scratch } from './duckdb_compare.mjs';
import { startServe, tarnCli } from './tarn_process.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('materialized');
const OWNER_ID = 'tarn_mvtestowner000000001';
const OWNER_SECRET = 'mv-test-owner-secret-0123456789abcdef';
// Who an embedded CLI command acts as (its audit actor): local:<user>.
const LOCAL_ACTOR = process.env.USER ? `local:${process.env.USER}` : `local:uid${process.getuid()}`;

let serve = null;
after(async () => (serve ? serve.stop() : null));

const { run, ok, json, jsonError, fails } = tarnCli(bin, OWNER_ID, OWNER_SECRET);

const SQL = 'SELECT region, count(*) AS n, sum(amount) AS total FROM shop.sales.orders WHERE amount > 10 GROUP BY region';
let part = 0;
async function appendRows(target, from, to) {
  const csv = path.join(dir, `part-${++part}.csv`);
  await query(`COPY (SELECT i AS id, ['eu','us','apac'][(i % 3) + 1] AS region, ((i * 37) % 10000 / 100)::DECIMAL(10,2) AS amount
      FROM range(${from}, ${to}) t(i)) TO ${quote(csv)} (HEADER)`);
  return json(target, ['append', 'shop.sales.orders', csv]);
}

// The view equals its SQL over the source at `snapshot`: DuckDB compares the view's rows with
// the SQL over the source's rows at that snapshot, both exported by tarn sql to Parquet.
async function viewMatchesSource(target, view, snapshot, tag, sql = SQL) {
  const mine = path.join(dir, `${tag}-view.parquet`);
  const src = path.join(dir, `${tag}-src.parquet`);
  ok(target, ['sql', `SELECT * FROM ${view}`, '--output', mine]);
  ok(target, ['sql', `SELECT * FROM tarn_scan('shop.sales.orders', snapshot := ${snapshot})`, '--output', src]);
  const theirs = `(${sql.replace('shop.sales.orders', `read_parquet(${quote(src)})`)})`;
  const [c] = await query(`SELECT (SELECT count(*) FROM read_parquet(${quote(mine)}))::INT AS mine, (SELECT count(*) FROM ${theirs})::INT AS theirs,
      (SELECT count(*) FROM (SELECT * FROM read_parquet(${quote(mine)}) EXCEPT ALL SELECT * FROM ${theirs}))::INT AS extra,
      (SELECT count(*) FROM (SELECT * FROM ${theirs} EXCEPT ALL SELECT * FROM read_parquet(${quote(mine)})))::INT AS missing`);
  assert.deepEqual(c, { mine: c.theirs, theirs: c.theirs, extra: 0, missing: 0 }, `${view} at ${snapshot}`);
}

async function exercise(target, tag, remote) {
  ok(target, ['workspace', 'create', 'shop']);
  ok(target, ['workspace', 'set', 'shop', 'deletion_protection=false']);
  ok(target, ['collection', 'create', 'shop.sales']);
  ok(target, ['dataset', 'create', 'shop.sales.orders', '--schema', 'id INT64 NOT NULL, region VARCHAR, amount DECIMAL(10,2)']);
  const s1 = await appendRows(target, 0, 3000);
  const mv = json(target, ['mv', 'create', 'shop.sales.by_region', '--sql', SQL, '--description', 'per region']);
  assert.equal(mv.version, 1);
  assert.deepEqual(mv.sources, ['shop.sales.orders']);
  assert.equal(mv.last_refresh_status, 'succeeded');
  assert.deepEqual(mv.reflects, [{ dataset: 'shop.sales.orders', snapshot_id: s1.snapshot_id }]);
  assert.equal(mv.triggers.length, 1);
  assert.equal(mv.triggers[0].minimum_interval_s, 120);
  await viewMatchesSource(target, 'shop.sales.by_region', s1.snapshot_id, `${tag}-1`);
  // Its first snapshot's receipt names the source and the producer.
  const snaps = json(target, ['snapshots', 'shop.sales.by_region']);
  assert.equal(snaps[0].receipt.produced_by, 'view:shop.sales.by_region');
  // A stacked view over it.
  json(target, ['mv', 'create', 'shop.sales.total', '--sql', 'SELECT sum(n) AS n FROM shop.sales.by_region']);
  ok(target, ['trigger', 'set-interval', 'shop.sales.by_region', 'refresh__sales__total', '0']);
  // Commits fire: the first inside the floor is throttled, so set it to 0 and commit again.
  const s2 = await appendRows(target, 3000, 4000);
  let jobs = json(target, ['jobs', 'list', '--target', 'shop.sales.by_region']);
  assert.equal(jobs.length, 1);
  assert.deepEqual([jobs[0].from_snapshot, jobs[0].to_snapshot, jobs[0].state], [s1.snapshot_id, s2.snapshot_id, 'queued']);
  assert.equal(jobs[0].fired_by, remote ? OWNER_ID : LOCAL_ACTOR);
  const s3 = await appendRows(target, 4000, 4500);  // throttled
  assert.equal(json(target, ['jobs', 'list', '--target', 'shop.sales.by_region']).length, 1);
  assert.equal(json(target, ['trigger', 'list', 'shop.sales.orders'])[0].last_fired_status, 'throttled');
  ok(target, ['trigger', 'set-interval', 'shop.sales.orders', 'refresh__sales__by_region', '0']);
  json(target, ['delete', 'shop.sales.orders', '--where', 'id < 100']);
  const s4 = json(target, ['snapshots', 'shop.sales.orders']).at(-1);
  jobs = json(target, ['jobs', 'list', '--target', 'shop.sales.by_region']);
  assert.equal(jobs.length, 2);
  assert.deepEqual([jobs[0].from_snapshot, jobs[0].to_snapshot], [s2.snapshot_id, s4.snapshot_id]);
  assert.ok(s3.snapshot_id > s2.snapshot_id && s3.snapshot_id < s4.snapshot_id);
  if (remote) {
    // Jobs of tarn serve are its worker's to run (issue 17's next part); the CLI says so.
    fails(target, ['jobs', 'run'], 'invalid_argument', 2);
    return;
  }
  // Run them: each refresh reads the source at its job's window end.
  const ran = ok(target, ['jobs', 'run', '--json']).trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(ran.every((j) => j.state === 'succeeded'), JSON.stringify(ran));
  await viewMatchesSource(target, 'shop.sales.by_region', s4.snapshot_id, `${tag}-4`);
  // The stacked view was fired by the inner refresh and refreshes on the next run.
  ok(target, ['jobs', 'run']);
  const total = JSON.parse(ok(target, ['sql', 'SELECT n FROM shop.sales.total', '--json']));
  const inner = JSON.parse(ok(target, ['sql', 'SELECT sum(n)::BIGINT AS n FROM shop.sales.by_region', '--json']));
  assert.equal(Number(total.n), Number(inner.n));
  const shown = json(target, ['mv', 'show', 'shop.sales.by_region']);
  assert.equal(shown.last_refresh_status, 'succeeded');
  assert.deepEqual(shown.reflects.map((r) => r.snapshot_id), [s4.snapshot_id]);
  assert.ok(shown.last_refresh_job.startsWith('job_'));
  // A job run twice commits once (the job id is the commit's idempotency key).
  const done = json(target, ['jobs', 'show', shown.last_refresh_job]);
  assert.equal(done.state, 'succeeded');
  fails(target, ['jobs', 'retry', done.id], 'job_not_retryable', 3);
  // Refresh by hand; replace with new SQL (a new version, the data recomputed).
  ok(target, ['mv', 'refresh', 'shop.sales.by_region']);
  const v2 = json(target, ['mv', 'replace', 'shop.sales.by_region', '--sql', SQL.replace('> 10', '> 50')]);
  assert.equal(v2.version, 2);
  assert.equal(v2.description, 'per region');
  assert.equal(v2.triggers[0].minimum_interval_s, 0);  // kept
  // A replace with other columns: the view's dataset takes the new SQL's columns, in its order.
  const SQL3 = 'SELECT max(amount) AS top, region, count(*) AS n FROM shop.sales.orders GROUP BY region';
  json(target, ['mv', 'replace', 'shop.sales.by_region', '--sql', SQL3]);
  const row = JSON.parse(ok(target, ['sql', 'SELECT * FROM shop.sales.by_region LIMIT 1', '--json']));
  assert.deepEqual(Object.keys(row), ['top', 'region', 'n']);
  await viewMatchesSource(target, 'shop.sales.by_region', s4.snapshot_id, `${tag}-v3`, SQL3);
  // A type that does not widen is refused with nothing written.
  fails(target, ['mv', 'replace', 'shop.sales.by_region', '--sql', "SELECT 'x' AS top, region, count(*) AS n FROM shop.sales.orders GROUP BY region"],
    'invalid_argument', 2);
  assert.equal(json(target, ['mv', 'show', 'shop.sales.by_region']).version, 3);
  json(target, ['mv', 'replace', 'shop.sales.by_region', '--sql', SQL]);
}

async function rules(target) {
  // A circle is refused and writes nothing.
  fails(target, ['mv', 'replace', 'shop.sales.by_region', '--sql', 'SELECT region, count(*) AS n, 0::DECIMAL(38,2) AS total FROM shop.sales.total, shop.sales.orders GROUP BY region'],
    'trigger_cycle', 3);
  assert.deepEqual(json(target, ['mv', 'show', 'shop.sales.by_region']).sources, ['shop.sales.orders']);
  fails(target, ['dataset', 'rename', 'shop.sales.orders', 'orders2'], 'has_triggers', 3);
  fails(target, ['dataset', 'rename', 'shop.sales.total', 'total2'], 'has_triggers', 3);
  fails(target, ['mv', 'create', 'shop.sales.by_region', '--sql', SQL], 'materialized_view_exists', 3);
  assert.deepEqual(json(target, ['mv', 'list', 'shop.sales']).map((m) => m.name), ['shop.sales.by_region', 'shop.sales.total']);
  // Drop cleans the triggers; a raw dataset drop does the same.
  ok(target, ['mv', 'drop', 'shop.sales.total', '--purge']);
  assert.deepEqual(json(target, ['trigger', 'list', 'shop.sales.by_region']), []);
  ok(target, ['dataset', 'drop', 'shop.sales.by_region', '--purge']);
  assert.deepEqual(json(target, ['trigger', 'list', 'shop.sales.orders']), []);
  ok(target, ['dataset', 'rename', 'shop.sales.orders', 'orders2']);
}

// An incremental view (a projection and filter of one dataset): each refresh adds the rows the
// source added and deletes the rows whose source rows went; it equals a full recompute.
const INC_SQL = 'SELECT id, region, amount * 2 AS doubled FROM shop.sales.orders WHERE amount > 10';
async function incremental(target, tag) {
  ok(target, ['workspace', 'create', 'shop']);
  ok(target, ['collection', 'create', 'shop.sales']);
  ok(target, ['dataset', 'create', 'shop.sales.orders', '--schema', 'id INT64 NOT NULL, region VARCHAR, amount DECIMAL(10,2)']);
  await appendRows(target, 0, 3000);
  const mv = json(target, ['mv', 'create', 'shop.sales.big', '--sql', INC_SQL]);
  assert.equal(mv.refresh_kind, 'incremental');
  // Its lineage column is never shown by tarn sql.
  const cols = JSON.parse(ok(target, ['sql', 'SELECT * FROM shop.sales.big LIMIT 1', '--json']));
  assert.deepEqual(Object.keys(cols), ['id', 'region', 'doubled']);
  // Appends: the refresh adds the new rows only.
  const s2 = await appendRows(target, 3000, 3500);
  let r = json(target, ['mv', 'refresh', 'shop.sales.big']);
  assert.equal(r.mode, 'incremental');
  assert.ok(r.rows > 0 && r.rows <= 500, JSON.stringify(r));
  await viewMatchesSource(target, 'shop.sales.big', s2.snapshot_id, `${tag}-inc-1`, INC_SQL);
  // Deletes, in old and new files, and an append: one snapshot (a merge) both ways.
  json(target, ['delete', 'shop.sales.orders', '--where', 'id < 100 OR id >= 3400']);
  const s4 = await appendRows(target, 5000, 5100);
  r = json(target, ['mv', 'refresh', 'shop.sales.big']);
  assert.equal(r.mode, 'incremental');
  await viewMatchesSource(target, 'shop.sales.big', s4.snapshot_id, `${tag}-inc-2`, INC_SQL);
  const snaps = json(target, ['snapshots', 'shop.sales.big']);
  assert.equal(snaps.at(-1).operation, 'merge');
  assert.deepEqual(json(target, ['mv', 'show', 'shop.sales.big']).reflects.map((x) => x.snapshot_id), [s4.snapshot_id]);
  // Nothing new: nothing committed.
  r = json(target, ['mv', 'refresh', 'shop.sales.big']);
  assert.deepEqual([r.mode, r.rows, r.snapshot_id], ['incremental', 0, null]);
  assert.equal(json(target, ['snapshots', 'shop.sales.big']).length, snaps.length);
  // A commit on the view by someone else: the next refresh recomputes (its data is not what
  // the last refresh wrote).
  json(target, ['delete', 'shop.sales.big', '--where', 'id = 150']);
  assert.equal(json(target, ['mv', 'refresh', 'shop.sales.big']).mode, 'full');
  await viewMatchesSource(target, 'shop.sales.big', s4.snapshot_id, `${tag}-inc-2b`, INC_SQL);
  // A full recompute gives the same rows.
  r = json(target, ['mv', 'refresh', 'shop.sales.big', '--full']);
  assert.equal(r.mode, 'full');
  await viewMatchesSource(target, 'shop.sales.big', s4.snapshot_id, `${tag}-inc-3`, INC_SQL);
  // DISTINCT is no projection: replaced with it, the view recomputes.
  const v2 = json(target, ['mv', 'replace', 'shop.sales.big', '--sql', INC_SQL.replace('SELECT', 'SELECT DISTINCT')]);
  assert.equal(v2.refresh_kind, 'full');
  assert.equal(json(target, ['mv', 'refresh', 'shop.sales.big']).mode, 'full');
  // Back to a projection: incremental again, from a full first run.
  const v3 = json(target, ['mv', 'replace', 'shop.sales.big', '--sql', INC_SQL]);
  assert.equal(v3.refresh_kind, 'incremental');
  await viewMatchesSource(target, 'shop.sales.big', s4.snapshot_id, `${tag}-inc-4`, INC_SQL);
  const s5 = await appendRows(target, 6000, 6050);
  assert.equal(json(target, ['mv', 'refresh', 'shop.sales.big']).mode, 'incremental');
  await viewMatchesSource(target, 'shop.sales.big', s5.snapshot_id, `${tag}-inc-5`, INC_SQL);
  // Rollbacks of the source: the last append's rows go, and come back, incrementally.
  const back = json(target, ['rollback', 'shop.sales.orders', String(s4.snapshot_id), '-m', 'undo']);
  assert.equal(json(target, ['mv', 'refresh', 'shop.sales.big']).mode, 'incremental');
  await viewMatchesSource(target, 'shop.sales.big', back.snapshot_id, `${tag}-inc-6`, INC_SQL);
  const forward = json(target, ['rollback', 'shop.sales.orders', String(s5.snapshot_id), '-m', 'redo']);
  assert.equal(json(target, ['mv', 'refresh', 'shop.sales.big']).mode, 'incremental');
  await viewMatchesSource(target, 'shop.sales.big', forward.snapshot_id, `${tag}-inc-7`, INC_SQL);
  // Both inside one window: a file the view has is live again under a later snapshot, whose
  // rows would read as new ones; the view recomputes.
  json(target, ['rollback', 'shop.sales.orders', String(s4.snapshot_id), '-m', 'undo']);
  const again = json(target, ['rollback', 'shop.sales.orders', String(s5.snapshot_id), '-m', 'redo']);
  assert.equal(json(target, ['mv', 'refresh', 'shop.sales.big']).mode, 'full');
  await viewMatchesSource(target, 'shop.sales.big', again.snapshot_id, `${tag}-inc-8`, INC_SQL);
}

test('incremental refresh, embedded and through tarn serve', async () => {
  await incremental(path.join(dir, 'inc-embedded'), 'inc-embedded');
  const catalog = path.join(dir, 'inc-served');
  const served = await startServe({ bin, catalog, logPath: path.join(dir, 'inc-serve.log'), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET });
  try {
    await incremental(served.url, 'inc-remote');
  } finally {
    await served.stop();
  }
});

test('embedded: create, fire, run, compare, replace, the rules', async () => {
  const catalog = path.join(dir, 'embedded');
  await exercise(catalog, 'embedded', false);
  await rules(catalog);
});

test('remote: the same through tarn serve (jobs recorded with the caller)', async () => {
  const catalog = path.join(dir, 'served');
  serve = await startServe({ bin, catalog, logPath: path.join(dir, 'serve.log'), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET });
  await exercise(serve.url, 'remote', true);
  // The jobs are in the catalog the server shares: run them embedded over the same directory.
  const ran = ok(catalog, ['jobs', 'run', '--json']).trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(ran.length >= 2 && ran.every((j) => j.state === 'succeeded'), JSON.stringify(ran));
  const jobs = json(serve.url, ['jobs', 'list']);
  assert.ok(jobs.every((j) => j.state === 'succeeded'));
  const reader = json(serve.url, ['token', 'create', '--workspace', 'shop', '--role', 'reader']);
  const env = { TARN_CLIENT_ID: reader.client_id, TARN_CLIENT_SECRET: reader.client_secret };
  assert.equal(json(serve.url, ['jobs', 'list'], env).length, jobs.length);
  const r = run(serve.url, ['mv', 'drop', 'shop.sales.total', '--json'], env);
  assert.equal(r.code, 5);
  await rules(serve.url);
  assert.ok(fs.existsSync(path.join(dir, 'serve.log')));
});

// The egress lock on views: a view in another workspace than its source is refused at creation
// and at every refresh, unless the source workspace marked that view SECURE into the view's
// workspace; a blocked refresh ends egress_blocked on the view and leaves its data alone.
test('the egress lock and SECURE on a view across workspaces', async () => {
  const t = path.join(dir, 'egress');
  ok(t, ['workspace', 'create', 'shop']);
  ok(t, ['collection', 'create', 'shop.sales']);
  ok(t, ['dataset', 'create', 'shop.sales.orders', '--schema', 'id INT64 NOT NULL, region VARCHAR, amount DECIMAL(10,2)']);
  await appendRows(t, 0, 100);
  ok(t, ['workspace', 'create', 'mart']);
  ok(t, ['collection', 'create', 'mart.m']);
  const sql = 'SELECT region, count(*) AS n FROM shop.sales.orders GROUP BY region';
  fails(t, ['mv', 'create', 'mart.m.by_region', '--sql', sql], 'egress_blocked', 5);
  // A mark for another object, or into another workspace, does not let it through.
  ok(t, ['workspace', 'secure', 'mark', 'shop', 'mart.m.other', '--to', 'mart']);
  ok(t, ['workspace', 'secure', 'mark', 'shop', 'mart.m.by_region', '--to', 'elsewhere']);
  fails(t, ['mv', 'create', 'mart.m.by_region', '--sql', sql], 'egress_blocked', 5);
  ok(t, ['workspace', 'secure', 'mark', 'shop', 'mart.m.by_region', '--to', 'mart']);
  ok(t, ['mv', 'create', 'mart.m.by_region', '--sql', sql]);
  assert.equal(json(t, ['sql', 'SELECT sum(n)::INT AS n FROM mart.m.by_region']).n, 100);
  // Withdrawn: the next refresh is blocked, recorded on the view, the data kept.
  ok(t, ['workspace', 'secure', 'clear', 'shop', 'mart.m.by_region']);
  await appendRows(t, 100, 150);
  const r = run(t, ['mv', 'refresh', 'mart.m.by_region', '--json']);
  assert.equal(r.code, 5, r.err);
  assert.equal(jsonError(r).code, 'egress_blocked');
  assert.equal(json(t, ['mv', 'show', 'mart.m.by_region']).last_refresh_status, 'egress_blocked');
  assert.equal(json(t, ['sql', 'SELECT sum(n)::INT AS n FROM mart.m.by_region']).n, 100);
  // A blocked refresh is a platform event too: an audit row and one alert per view and reason.
  const blocked = () => json(t, ['audit', '--workspace', 'mart']).filter((a) => a.action === 'mv.refresh_egress_blocked');
  assert.equal(blocked().length, 1);
  assert.deepEqual([blocked()[0].actor, blocked()[0].target, blocked()[0].outcome], [LOCAL_ACTOR, 'mart.m.by_region', 'egress_blocked']);
  assert.match(blocked()[0].detail.error, /shop/);
  const alerts = () => json(t, ['alerts', 'list', '--code', 'egress_blocked']);
  assert.deepEqual(alerts().map((a) => [a.object, a.count]), [['mart.m.by_region', 1]]);
  assert.equal(run(t, ['mv', 'refresh', 'mart.m.by_region']).code, 5);
  assert.equal(blocked().length, 2);
  assert.deepEqual(alerts().map((a) => [a.object, a.count]), [['mart.m.by_region', 2]]);
  ok(t, ['workspace', 'secure', 'mark', 'shop', 'mart.m.by_region', '--to', 'mart']);
  ok(t, ['mv', 'refresh', 'mart.m.by_region']);
  assert.equal(json(t, ['sql', 'SELECT sum(n)::INT AS n FROM mart.m.by_region']).n, 150);
});
