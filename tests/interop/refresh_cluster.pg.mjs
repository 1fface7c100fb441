// Refresh jobs across a cluster on PostgreSQL (run by tests/run_with_pg.sh as
// integration.pg.refresh_cluster): tarn serve processes on one metastore and warehouse, each
// dispatching to one `tarn worker`. Appends make the materialized view equal to its SQL over
// the source at the fired snapshot (DuckDB judges); stacked views refresh a hop at a time; of 8
// commits racing on 3 servers inside a trigger's floor exactly one fires; a worker that is
// down leaves the commit alone and the job is delivered once it is back; kill -9 of a server
// while it delivers: another server delivers again after the lease and the refresh commits
// exactly once; a committer without rights on the view gets a denied refresh.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { query, quote, scratch } from './duckdb_compare.mjs';
import { freePort, runTarn, startServe, tarnEnv, until } from './tarn_process.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const pg = process.env.TARN_TEST_PG_URI;
const dir = scratch('refresh_cluster');
const warehouse = path.join(dir, 'warehouse');
const OWNER_ID = 'tarn_clusterowner00000001';
const OWNER_SECRET = 'cluster-owner-secret-0123456789abcdef';
const env = tarnEnv(OWNER_ID, OWNER_SECRET);
const procs = [];
after(async () => {
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  for (const s of servers) await s.stop();
});

const servers = [];
async function serve(name, workerUrl, extra = []) {
  const s = await startServe({
    bin, catalog: '', logPath: path.join(dir, `${name}.log`), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET,
    args: ['--metastore', pg, '--warehouse', warehouse, '--worker-url', workerUrl, ...extra],
  });
  servers.push(s);
  return s;
}
async function startWorker(port, catalogUrl) {
  const log = fs.openSync(path.join(dir, `worker-${port}.log`), 'a');
  const child = spawn(bin, ['worker', '--listen', `127.0.0.1:${port}`, '--catalog', catalogUrl],
    { env: { ...env, TARN_CATALOG: '' }, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  procs.push(child);
  await until(async () => {
    const r = await fetch(`http://127.0.0.1:${port}/livez`).catch(() => null);
    return r && r.ok;
  }, 20_000);
  return { child, stop: () => new Promise((res) => { child.once('exit', res); child.kill('SIGTERM'); }) };
}
const ok = (target, args, extraEnv = {}) => {
  const r = runTarn(bin, target, args, { ...env, ...extraEnv });
  assert.equal(r.code, 0, `tarn ${args.join(' ')}: ${r.err}`);
  return r.out;
};
const json = (target, args, extraEnv) => JSON.parse(ok(target, [...args, '--json'], extraEnv));
const jobsOf = (url, target) => json(url, ['jobs', 'list', '--target', target]);

const SQL = 'SELECT region, count(*) AS n, sum(amount) AS total FROM shop.sales.orders GROUP BY region';
let part = 0;
async function csv(from, to) {
  const f = path.join(dir, `part-${++part}.csv`);
  await query(`COPY (SELECT i AS id, ['eu','us','apac'][(i % 3) + 1] AS region, ((i * 37) % 10000 / 100)::DECIMAL(10,2) AS amount
      FROM range(${from}, ${to}) t(i)) TO ${quote(f)} (HEADER)`);
  return f;
}
async function viewMatches(url, view, sql, snapshot, tag) {
  const mine = path.join(dir, `${tag}-view.parquet`);
  const src = path.join(dir, `${tag}-src.parquet`);
  ok(url, ['sql', `SELECT * FROM ${view}`, '--output', mine]);
  ok(url, ['sql', `SELECT * FROM tarn_scan('shop.sales.orders', snapshot := ${snapshot})`, '--output', src]);
  const theirs = `(${sql.replace('shop.sales.orders', `read_parquet(${quote(src)})`)})`;
  const [c] = await query(`SELECT (SELECT count(*) FROM (SELECT * FROM read_parquet(${quote(mine)}) EXCEPT ALL SELECT * FROM ${theirs}))::INT AS extra,
      (SELECT count(*) FROM (SELECT * FROM ${theirs} EXCEPT ALL SELECT * FROM read_parquet(${quote(mine)})))::INT AS missing`);
  assert.deepEqual(c, { extra: 0, missing: 0 }, `${view} at snapshot ${snapshot}`);
}

let A, B, C, workerPort, worker;

test('two servers and a worker: appends refresh the view, stacked views follow', { skip: !pg }, async () => {
  workerPort = await freePort();
  const workerUrl = `http://127.0.0.1:${workerPort}/run`;
  A = await serve('a', workerUrl);
  B = await serve('b', workerUrl);
  worker = await startWorker(workerPort, A.url);
  ok(A.url, ['workspace', 'create', 'shop']);
  ok(A.url, ['workspace', 'set', 'shop', 'deletion_protection=false']);
  ok(A.url, ['collection', 'create', 'shop.sales']);
  ok(A.url, ['dataset', 'create', 'shop.sales.orders', '--schema', 'id INT64 NOT NULL, region VARCHAR, amount DECIMAL(10,2)']);
  ok(A.url, ['append', 'shop.sales.orders', await csv(0, 2000)]);
  json(A.url, ['mv', 'create', 'shop.sales.by_region', '--sql', SQL]);
  json(B.url, ['mv', 'create', 'shop.sales.total', '--sql', 'SELECT sum(n)::BIGINT AS n FROM shop.sales.by_region']);
  ok(A.url, ['trigger', 'set-interval', 'shop.sales.orders', 'refresh__sales__by_region', '0']);
  ok(A.url, ['trigger', 'set-interval', 'shop.sales.by_region', 'refresh__sales__total', '0']);
  const s2 = json(B.url, ['append', 'shop.sales.orders', await csv(2000, 3000)]);
  const job = await until(() => jobsOf(A.url, 'shop.sales.by_region').find((j) => j.state === 'succeeded'));
  assert.equal(job.to_snapshot, s2.snapshot_id);
  assert.equal(job.fired_by, OWNER_ID);
  await viewMatches(A.url, 'shop.sales.by_region', SQL, s2.snapshot_id, 'first');
  // The outer view follows the inner refresh's commit.
  await until(() => jobsOf(A.url, 'shop.sales.total').some((j) => j.state === 'succeeded'));
  const total = JSON.parse(ok(A.url, ['sql', 'SELECT n FROM shop.sales.total', '--json'])).n;
  assert.equal(Number(total), 3000);
  const shown = json(B.url, ['mv', 'show', 'shop.sales.by_region']);
  assert.equal(shown.last_refresh_status, 'succeeded');
  assert.equal(shown.last_refresh_job, job.id);
});

test('an incremental view, refreshed by the worker after appends and deletes, equals its SQL', { skip: !pg }, async () => {
  const INC = 'SELECT id, region, amount * 2 AS doubled FROM shop.sales.orders WHERE amount > 10';
  assert.equal(json(A.url, ['mv', 'create', 'shop.sales.big', '--sql', INC]).refresh_kind, 'incremental');
  ok(A.url, ['trigger', 'set-interval', 'shop.sales.orders', 'refresh__sales__big', '0']);
  const refreshed = (snapshot) => until(() => jobsOf(A.url, 'shop.sales.big')
    .find((j) => j.state === 'succeeded' && j.to_snapshot === snapshot));
  const s1 = json(B.url, ['append', 'shop.sales.orders', await csv(5000, 5500)]);
  await refreshed(s1.snapshot_id);
  json(B.url, ['delete', 'shop.sales.orders', '--where', 'id < 50 OR id >= 5400']);
  const s2 = json(A.url, ['snapshots', 'shop.sales.orders']).at(-1);
  await refreshed(s2.snapshot_id);
  const shown = json(B.url, ['mv', 'show', 'shop.sales.big']);
  assert.equal(shown.last_refresh_mode, 'incremental');
  assert.deepEqual(shown.reflects.map((r) => r.snapshot_id), [s2.snapshot_id]);
  await viewMatches(A.url, 'shop.sales.big', INC, s2.snapshot_id, 'incremental');
  ok(A.url, ['mv', 'drop', 'shop.sales.big', '--purge']);
});

test('8 commits racing on 3 servers inside the floor: exactly one fires', { skip: !pg }, async () => {
  C = await serve('c', `http://127.0.0.1:${workerPort}/run`);
  // A new view's trigger has the 120 s floor and has never fired.
  json(A.url, ['mv', 'create', 'shop.sales.floor', '--sql', 'SELECT count(*) AS n FROM shop.sales.orders']);
  const f = await csv(5000, 5010);
  const urls = [A.url, B.url, C.url];
  const runs = await Promise.all([...Array(8).keys()].map((i) => new Promise((resolve) => {
    const p = spawn(bin, ['append', 'shop.sales.orders', f, '--catalog', urls[i % 3]], { env, stdio: 'ignore' });
    p.on('exit', resolve);
  })));
  assert.deepEqual(runs, Array(8).fill(0));
  assert.equal(jobsOf(A.url, 'shop.sales.floor').length, 1);
  const t = json(A.url, ['trigger', 'list', 'shop.sales.orders']).find((x) => x.target === 'shop.sales.floor');
  assert.equal(t.minimum_interval_s, 120);
  assert.equal(t.last_fired_status, 'throttled');
});

test('a worker that is down: the commit stands, the job waits and is delivered later', { skip: !pg }, async () => {
  await until(() => json(A.url, ['jobs', 'list', '--state', 'queued']).length === 0
    && json(A.url, ['jobs', 'list', '--state', 'running']).length === 0);
  await worker.stop();
  const s = json(A.url, ['append', 'shop.sales.orders', await csv(6000, 6100)]);
  assert.ok(s.snapshot_id > 0);
  const waiting = await until(() => jobsOf(A.url, 'shop.sales.by_region').find((j) => j.to_snapshot === s.snapshot_id && j.attempts >= 1 && j.state === 'queued'));
  assert.ok(waiting.error.length > 0, JSON.stringify(waiting));
  worker = await startWorker(workerPort, B.url);
  await until(() => jobsOf(A.url, 'shop.sales.by_region').find((j) => j.to_snapshot === s.snapshot_id && j.state === 'succeeded'), 90_000);
  await viewMatches(A.url, 'shop.sales.by_region', SQL, s.snapshot_id, 'after-down');
});

test('kill -9 of a server while it delivers: delivered again after the lease, committed once', { skip: !pg }, async () => {
  // Only D dispatches at first, to a worker that takes the connection and never answers.
  await until(() => json(A.url, ['jobs', 'list', '--state', 'queued']).length === 0
    && json(A.url, ['jobs', 'list', '--state', 'running']).length === 0, 90_000);
  for (const s of [A, B, C]) await s.stop();
  servers.length = 0;
  const hole = net.createServer(() => {});
  const holePort = await new Promise((r) => hole.listen(0, '127.0.0.1', () => r(hole.address().port)));
  const D = await serve('d', `http://127.0.0.1:${holePort}/run`, ['--job-lease', '3']);
  await worker.stop();
  const before = json(D.url, ['snapshots', 'shop.sales.by_region']).length;
  const s = json(D.url, ['append', 'shop.sales.orders', await csv(7000, 7100)]);
  const running = await until(() => jobsOf(D.url, 'shop.sales.by_region').find((j) => j.to_snapshot === s.snapshot_id && j.state === 'running'));
  D.child.kill('SIGKILL');
  await new Promise((r) => D.child.once('exit', r));
  servers.length = 0;
  hole.close();
  const E = await serve('e', `http://127.0.0.1:${workerPort}/run`, ['--job-lease', '3']);
  worker = await startWorker(workerPort, E.url);
  const done = await until(() => jobsOf(E.url, 'shop.sales.by_region').find((j) => j.id === running.id && j.state === 'succeeded'), 90_000);
  assert.ok(done.attempts >= 2, JSON.stringify(done));
  const snaps = json(E.url, ['snapshots', 'shop.sales.by_region']);
  assert.equal(snaps.filter((x) => x.idempotency_key === `refresh:${running.id}`).length, 1);
  assert.ok(snaps.length >= before + 1);
  await viewMatches(E.url, 'shop.sales.by_region', SQL, s.snapshot_id, 'after-kill');
});

test('a committer without rights on the view: the refresh is denied, recorded', { skip: !pg }, async () => {
  const url = servers[0].url;
  const t = json(url, ['token', 'create', '--workspace', 'shop', '--role', 'writer', '--pattern', 'sales.orders']);
  const writer = { TARN_CLIENT_ID: t.client_id, TARN_CLIENT_SECRET: t.client_secret };
  const s = json(url, ['append', 'shop.sales.orders', await csv(8000, 8010)], writer);
  const denied = await until(() => jobsOf(url, 'shop.sales.by_region').find((j) => j.to_snapshot === s.snapshot_id && j.state !== 'queued' && j.state !== 'running'));
  assert.equal(denied.state, 'denied', JSON.stringify(denied));
  assert.equal(denied.fired_by, t.client_id);
  const shown = json(url, ['mv', 'show', 'shop.sales.by_region']);
  assert.equal(shown.last_refresh_status, 'denied');
  assert.equal(shown.last_refresh_job, denied.id);
  assert.ok(spawnSync);
});
