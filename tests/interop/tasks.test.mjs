// Tasks end to end (docs/design/tasks.md): `tarn task create|show|list|signal|run|drop`
// embedded (jobs run in this process by `tarn jobs run`) and through `tarn serve` with its
// dispatcher delivering to a `tarn worker`, where a signalled run has the task's runs_as
// rights, not the signaller's: a reader may not signal, a writer may, and a run whose runs_as
// was revoked is denied. Results are compared with DuckDB over the same rows.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { query, quote, scratch } from './duckdb_compare.mjs';
import { freePort, startServe, tarnEnv, until, tarnCli } from './tarn_process.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('tasks');
const OWNER_ID = 'tarn_taskowner00000000001';
const OWNER_SECRET = 'task-test-owner-secret-0123456789abcd';
const LOCAL_ACTOR = process.env.USER ? `local:${process.env.USER}` : `local:uid${process.getuid()}`;

const stops = [];
after(async () => {
  for (const s of stops.reverse()) await s();
});

const { run, ok, json, jsonError, fails } = tarnCli(bin, OWNER_ID, OWNER_SECRET);

let part = 0;
async function appendRows(target, from, to) {
  const csv = path.join(dir, `part-${++part}.csv`);
  await query(`COPY (SELECT i AS id, ['eu','us','apac'][(i % 3) + 1] AS region, ((i * 37) % 10000 / 100)::DECIMAL(10,2) AS amount
      FROM range(${from}, ${to}) t(i)) TO ${quote(csv)} (HEADER)`);
  return json(target, ['append', 'shop.sales.orders', csv]);
}
const count = (target, sql) => json(target, ['sql', sql]).n;

function setUp(target) {
  ok(target, ['workspace', 'create', 'shop']);
  ok(target, ['collection', 'create', 'shop.sales']);
  ok(target, ['dataset', 'create', 'shop.sales.orders', '--schema', 'id INT64 NOT NULL, region VARCHAR, amount DECIMAL(10,2)']);
  ok(target, ['dataset', 'create', 'shop.sales.copy', '--schema', 'id INT64 NOT NULL, region VARCHAR, amount DECIMAL(10,2)']);
  ok(target, ['dataset', 'create', 'shop.sales.totals', '--schema', 'region VARCHAR, n BIGINT']);
}

// totals equals the SQL over orders at `snapshot` (DuckDB over tarn's exports).
async function totalsMatch(target, snapshot, tag) {
  const mine = path.join(dir, `${tag}-totals.parquet`);
  const src = path.join(dir, `${tag}-orders.parquet`);
  ok(target, ['sql', 'SELECT * FROM shop.sales.totals', '--output', mine]);
  ok(target, ['sql', `SELECT * FROM tarn_scan('shop.sales.orders', snapshot := ${snapshot})`, '--output', src]);
  const theirs = `(SELECT region, count(*) AS n FROM read_parquet(${quote(src)}) GROUP BY region)`;
  const [c] = await query(`SELECT (SELECT count(*) FROM (SELECT * FROM read_parquet(${quote(mine)}) EXCEPT ALL SELECT * FROM ${theirs}))::INT AS extra,
      (SELECT count(*) FROM (SELECT * FROM ${theirs} EXCEPT ALL SELECT * FROM read_parquet(${quote(mine)})))::INT AS missing`);
  assert.deepEqual(c, { extra: 0, missing: 0 }, `totals at orders@${snapshot}`);
}

test('embedded: a commit task and a signal task, their jobs, runs, receipts and rules', async () => {
  const t = path.join(dir, 'embedded');
  setUp(t);
  const created = json(t, ['task', 'create', 'shop.sales.count', '--sql', 'SELECT region, count(*) AS n FROM shop.sales.orders GROUP BY region',
    '--into', 'shop.sales.totals', '--overwrite', '--on', 'shop.sales.orders', '--description', 'orders per region']);
  assert.equal(created.name, 'shop.sales.count');
  assert.equal(created.version, 1);
  assert.deepEqual(created.reads, ['shop.sales.orders']);
  assert.deepEqual([created.definition.target, created.definition.mode, created.definition.trigger, created.definition.on],
    ['shop.sales.totals', 'overwrite', 'commit', 'shop.sales.orders']);
  assert.equal(created.definition.runs_as, LOCAL_ACTOR);
  assert.deepEqual(json(t, ['trigger', 'list', 'shop.sales.orders']).map((x) => [x.name, x.kind, x.target]),
    [['task__sales__count', 'task_run', 'shop.sales.count']]);

  // A commit on the source records a task job; tarn jobs run runs it.
  const s1 = await appendRows(t, 0, 90);
  const jobs = json(t, ['jobs', 'list', '--target', 'shop.sales.count']);
  assert.equal(jobs.length, 1);
  assert.deepEqual([jobs[0].kind, jobs[0].state, jobs[0].source, jobs[0].to_snapshot], ['task', 'queued', 'shop.sales.orders', s1.snapshot_id]);
  const ran = ok(t, ['jobs', 'run', '--json']).trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(ran.map((j) => j.state), ['succeeded']);
  await totalsMatch(t, s1.snapshot_id, 'e1');
  const shown = json(t, ['task', 'show', 'shop.sales.count']);
  assert.equal(shown.last_run_status, 'succeeded');
  assert.equal(shown.last_jobs[0].state, 'succeeded');
  // The run's snapshot names the task as producer and what it read.
  const lineage = json(t, ['lineage', 'shop.sales.totals']);
  assert.equal(lineage.snapshots[0].how, 'overwritten, by task shop.sales.count');
  assert.deepEqual(lineage.snapshots[0].receipt.read_source_keys, ['shop.sales.orders', `shop.sales.orders@${s1.snapshot_id}`]);
  assert.equal(lineage.snapshots[0].receipt.produced_by, 'task:shop.sales.count');

  // A signal task: signalled, queued, run; fired_by is the signaller.
  json(t, ['task', 'create', 'shop.sales.snap', '--sql', 'INSERT INTO shop.sales.copy SELECT * FROM shop.sales.orders WHERE amount > 10', '--signal']);
  const job = json(t, ['task', 'signal', 'shop.sales.snap']);
  assert.deepEqual([job.kind, job.trigger, job.fired_by, job.state, job.source], ['task', 'signal', LOCAL_ACTOR, 'queued', '']);
  ok(t, ['jobs', 'run']);
  const want = count(t, 'SELECT count(*)::INT AS n FROM shop.sales.orders WHERE amount > 10');
  assert.ok(want > 0);
  assert.equal(count(t, 'SELECT count(*)::INT AS n FROM shop.sales.copy'), want);
  // By hand, whatever the trigger: appends again.
  const byHand = json(t, ['task', 'run', 'shop.sales.snap']);
  assert.equal(byHand.rows, want);
  assert.equal(count(t, 'SELECT count(*)::INT AS n FROM shop.sales.copy'), 2 * want);
  assert.deepEqual(json(t, ['task', 'list', 'shop.sales']).map((x) => [x.name, x.last_run_status]),
    [['shop.sales.count', 'succeeded'], ['shop.sales.snap', 'succeeded']]);

  // Replace: a new version; the declaration follows the SQL.
  const replaced = json(t, ['task', 'replace', 'shop.sales.snap', '--sql', 'SELECT c.* FROM shop.sales.orders c JOIN shop.sales.totals t USING (region)',
    '--into', 'shop.sales.copy', '--signal']);
  assert.equal(replaced.version, 2);
  assert.deepEqual(replaced.reads, ['shop.sales.orders', 'shop.sales.totals']);

  // The rules.
  fails(t, ['task', 'signal', 'shop.sales.count'], 'task_not_signalled', 3);
  fails(t, ['task', 'create', 'shop.sales.x', '--sql', 'SELECT 1 AS id', '--into', 'shop.sales.copy', '--signal', '--on', 'shop.sales.orders'], null, 2);
  fails(t, ['task', 'create', 'shop.sales.x', '--sql', 'SELECT * FROM shop.sales.nope', '--into', 'shop.sales.copy', '--signal'], null, 3);
  fails(t, ['task', 'create', 'shop.sales.x', '--sql', 'INSERT INTO shop.sales.nope SELECT 1', '--signal'], 'dataset_not_found', 3);
  fails(t, ['task', 'create', 'shop.sales.x', '--sql', 'SELECT * FROM shop.sales.totals', '--into', 'shop.sales.orders', '--on', 'shop.sales.orders'], 'trigger_cycle', 3);
  fails(t, ['task', 'create', 'shop.sales.count', '--sql', 'SELECT 1 AS n', '--into', 'shop.sales.totals', '--signal'], 'task_exists', 3);
  fails(t, ['task', 'create', 'shop.sales.orders', '--sql', 'SELECT 1 AS n', '--into', 'shop.sales.totals', '--signal'], 'dataset_exists', 3);
  fails(t, ['task', 'create', 'shop.sales.x', '--sql', 'SELECT 1 AS n', '--into', 'shop.sales.totals', '--schedule', '0 25 * * *'], 'invalid_schedule', 2);
  fails(t, ['task', 'create', 'shop.sales.x', '--sql', 'SELECT 1 AS n', '--into', 'shop.sales.totals', '--schedule', '0 * * * *', '--time-zone', 'Nowhere/City'], 'unknown_time_zone', 2);
  fails(t, ['task', 'show', 'shop.sales.x'], 'task_not_found', 3);

  // A schedule shows its next slot.
  const hourly = json(t, ['task', 'create', 'shop.sales.hourly', '--sql', 'SELECT region, count(*) AS n FROM shop.sales.orders GROUP BY region',
    '--into', 'shop.sales.totals', '--overwrite', '--schedule', '0 * * * *', '--time-zone', 'Europe/London']);
  const due = hourly.next_due_at_us / 1e6;
  assert.ok(due > Date.now() / 1000 && due <= Date.now() / 1000 + 3600 && due % 3600 === 0, `${hourly.next_due_at_us}`);
  assert.match(ok(t, ['task', 'show', 'shop.sales.hourly']), /trigger: {2}schedule '0 \* \* \* \*' \(Europe\/London\)\n {2}next due: /);

  // Each mutation is audited; the sweep finds nothing wrong.
  const actions = json(t, ['audit', '--workspace', 'shop', '--limit', '1000']).map((a) => a.action);
  for (const a of ['task.create', 'task.replace', 'task.signal', 'task.run']) assert.ok(actions.includes(a), a);
  assert.equal(run(t, ['fsck', '--no-objects']).code, 0);
  ok(t, ['task', 'drop', 'shop.sales.snap']);
  fails(t, ['task', 'show', 'shop.sales.snap'], 'task_not_found', 3);
});

// Windows: each run sees the rows committed since the last successful run, as tarn_window.
test('embedded: a windowed task processes each row once; an expiry behind its window stops it', async () => {
  const t = path.join(dir, 'windows');
  setUp(t);
  fails(t, ['task', 'create', 'shop.sales.w', '--sql', 'INSERT INTO shop.sales.copy SELECT * FROM tarn_window', '--signal'], 'window_unbound', 2);
  const created = json(t, ['task', 'create', 'shop.sales.w', '--sql', 'INSERT INTO shop.sales.copy SELECT * FROM tarn_window',
    '--signal', '--window-source', 'shop.sales.orders']);
  assert.deepEqual([created.definition.window_source, created.window_end, created.reads], ['shop.sales.orders', 0, ['shop.sales.orders']]);
  const signalAndRun = () => {
    const job = json(t, ['task', 'signal', 'shop.sales.w']);
    ok(t, ['jobs', 'run']);
    return json(t, ['jobs', 'show', job.id]);
  };
  await appendRows(t, 0, 10);
  await appendRows(t, 10, 20);
  const s3 = await appendRows(t, 20, 30);
  const first = signalAndRun();
  assert.deepEqual([first.state, first.from_snapshot, first.to_snapshot], ['succeeded', 0, s3.snapshot_id]);
  assert.equal(json(t, ['task', 'show', 'shop.sales.w']).window_end, s3.snapshot_id);
  await appendRows(t, 30, 40);
  const s5 = await appendRows(t, 40, 50);
  const second = signalAndRun();
  assert.deepEqual([second.state, second.from_snapshot, second.to_snapshot], ['succeeded', s3.snapshot_id, s5.snapshot_id]);
  // Each row exactly once.
  assert.deepEqual(json(t, ['sql', 'SELECT count(*)::INT AS n, count(DISTINCT id)::INT AS d, min(id)::INT AS lo, max(id)::INT AS hi FROM shop.sales.copy']),
    { n: 50, d: 50, lo: 0, hi: 49 });
  // A run over an empty window adds nothing.
  assert.equal(signalAndRun().state, 'succeeded');
  assert.equal(count(t, 'SELECT count(*)::INT AS n FROM shop.sales.copy'), 50);
  // The snapshot the window starts after is expired: the next run fails, typed, and the
  // window stays where it was.
  await appendRows(t, 50, 60);
  await new Promise((r) => setTimeout(r, 1100));
  await appendRows(t, 60, 70);
  ok(t, ['expire', 'shop.sales.orders', '--older-than', '1s']);
  const third = signalAndRun();
  assert.equal(third.state, 'failed', JSON.stringify(third));
  assert.match(third.error, /starts after snapshot \d+: that snapshot was expired/);
  const after = json(t, ['task', 'show', 'shop.sales.w']);
  assert.deepEqual([after.window_end, after.last_run_status], [s5.snapshot_id, 'failed']);
  assert.equal(count(t, 'SELECT count(*)::INT AS n FROM shop.sales.copy'), 50);
  assert.equal(run(t, ['fsck', '--no-objects']).code, 0);
});

async function startWorker(port, catalogUrl) {
  const log = fs.openSync(path.join(dir, `worker-${port}.log`), 'a');
  const child = spawn(bin, ['worker', '--listen', `127.0.0.1:${port}`, '--catalog', catalogUrl],
    { env: { ...tarnEnv(OWNER_ID, OWNER_SECRET), TARN_CATALOG: '' }, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  stops.push(() => new Promise((res) => {
    if (child.exitCode !== null || child.signalCode !== null) return res();
    child.once('exit', res);
    child.kill('SIGTERM');
  }));
  await until(async () => {
    const r = await fetch(`http://127.0.0.1:${port}/livez`).catch(() => null);
    return r && r.ok;
  }, 20_000);
}

test('remote: a signal is a writer\'s, the run has runs_as\'s rights, a revoked runs_as is denied', async () => {
  const workerPort = await freePort();
  const serve = await startServe({
    bin, catalog: path.join(dir, 'served'), logPath: path.join(dir, 'serve.log'), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET,
    args: ['--worker-url', `http://127.0.0.1:${workerPort}/run`, '--schedule-tick', '1'],
  });
  stops.push(serve.stop);
  await startWorker(workerPort, serve.url);
  const u = serve.url;
  setUp(u);
  await appendRows(u, 0, 60);
  const token = (role) => json(u, ['token', 'create', '--workspace', 'shop', '--role', role]);
  const as = (tk) => ({ TARN_CLIENT_ID: tk.client_id, TARN_CLIENT_SECRET: tk.client_secret });
  const svc = token('writer');
  const writer = token('writer');
  const reader = token('reader');
  // Only an owner creates a task (and so chooses runs_as).
  fails(u, ['task', 'create', 'shop.sales.snap', '--sql', 'INSERT INTO shop.sales.copy SELECT * FROM shop.sales.orders', '--signal'], 'permission_denied', 5, as(writer));
  const created = json(u, ['task', 'create', 'shop.sales.snap', '--sql', 'INSERT INTO shop.sales.copy SELECT * FROM shop.sales.orders', '--signal', '--runs-as', svc.client_id]);
  assert.equal(created.definition.runs_as, svc.client_id);
  fails(u, ['task', 'create', 'shop.sales.ghost', '--sql', 'INSERT INTO shop.sales.copy SELECT * FROM shop.sales.orders', '--signal', '--runs-as', 'tarn_nobody'], 'token_not_found', 3);
  // An owner of shop alone cannot lend its runs the rights of a token it could not have made
  // (the owner of every workspace); its own or a shop writer's it can.
  const shopOwner = token('owner');
  fails(u, ['task', 'create', 'shop.sales.borrow', '--sql', 'INSERT INTO shop.sales.copy SELECT * FROM shop.sales.orders', '--signal', '--runs-as', OWNER_ID],
    'permission_denied', 5, as(shopOwner));
  ok(u, ['task', 'create', 'shop.sales.borrow', '--sql', 'INSERT INTO shop.sales.copy SELECT * FROM shop.sales.orders', '--signal', '--runs-as', svc.client_id], as(shopOwner));
  ok(u, ['task', 'drop', 'shop.sales.borrow']);
  // A schedule: the server's tick fires the next minute's slot once, the worker runs it.
  json(u, ['task', 'create', 'shop.sales.every_minute', '--sql', 'SELECT region, count(*) AS n FROM shop.sales.orders GROUP BY region',
    '--into', 'shop.sales.totals', '--overwrite', '--schedule', '* * * * *', '--runs-as', svc.client_id]);
  // A reader may read the task, not signal it.
  assert.equal(json(u, ['task', 'show', 'shop.sales.snap'], as(reader)).name, 'shop.sales.snap');
  fails(u, ['task', 'signal', 'shop.sales.snap'], 'permission_denied', 5, as(reader));
  // A writer signals; the worker runs it with svc's rights.
  const job = json(u, ['task', 'signal', 'shop.sales.snap'], as(writer));
  assert.deepEqual([job.fired_by, job.runs_as], [writer.client_id, svc.client_id]);
  const done = await until(() => {
    const j = json(u, ['jobs', 'show', job.id]);
    return j.state !== 'queued' && j.state !== 'running' ? j : null;
  });
  assert.equal(done.state, 'succeeded', done.error);
  assert.equal(count(u, 'SELECT count(*)::INT AS n FROM shop.sales.copy'), 60);
  const audit = json(u, ['audit', '--workspace', 'shop', '--limit', '1000']);
  const signalled = audit.filter((a) => a.action === 'task.signal');
  assert.deepEqual(signalled.map((a) => [a.actor, a.outcome]), [[reader.client_id, 'permission_denied'], [writer.client_id, 'ok']]);
  // The run's commit and its record are svc's, not the signaller's.
  assert.ok(audit.some((a) => a.action === 'task.run' && a.actor === svc.client_id), JSON.stringify(audit.slice(-8)));
  assert.ok(audit.some((a) => a.target === 'shop.sales.copy' && a.actor === svc.client_id && a.outcome === 'ok'));
  const scheduled = await until(() => {
    const j = json(u, ['jobs', 'list', '--target', 'shop.sales.every_minute']);
    return j.length && j[0].state === 'succeeded' ? j : null;
  }, 90_000);
  assert.deepEqual([scheduled.length, scheduled[0].trigger, scheduled[0].fired_by, scheduled[0].runs_as], [1, 'schedule', 'schedule', svc.client_id]);
  assert.equal(count(u, 'SELECT sum(n)::INT AS n FROM shop.sales.totals'), 60);
  const next = json(u, ['task', 'show', 'shop.sales.every_minute']);
  assert.equal(next.last_run_status, 'succeeded');
  assert.ok(next.next_due_at_us > Date.now() * 1000 - 5e6 && next.next_due_at_us % 60e6 === 0, JSON.stringify(next));
  ok(u, ['task', 'drop', 'shop.sales.every_minute']);
  // runs_as checked again at fire time: revoked, the next run is denied.
  ok(u, ['token', 'revoke', svc.client_id]);
  const second = json(u, ['task', 'signal', 'shop.sales.snap'], as(writer));
  const denied = await until(() => {
    const j = json(u, ['jobs', 'show', second.id]);
    return j.state !== 'queued' && j.state !== 'running' ? j : null;
  });
  assert.equal(denied.state, 'denied', JSON.stringify(denied));
  assert.equal(json(u, ['task', 'show', 'shop.sales.snap']).last_run_status, 'denied');
  assert.equal(count(u, 'SELECT count(*)::INT AS n FROM shop.sales.copy'), 60);
});
