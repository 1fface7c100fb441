// Server-run housekeeping across two `tarn serve` processes on one PostgreSQL metastore and
// warehouse (docs/design/maintenance.md "Housekeeping"; ctest integration.pg.housekeeping_cluster):
// with one-second slots, the dataset that opted in (compaction.auto=true) is compacted once
// (its 20 files rewritten once in all, no conflict), the one that did not is left alone,
// the workspace's retention policy expires old snapshots, each run is audited as
// tarn:housekeeping, and /metrics on the two servers adds up to what was done.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';
import { mintToken, api } from './hostile_util.mjs';
import { startServe, tarnCli, until } from './tarn_process.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const pg = process.env.TARN_TEST_PG_URI;
const dir = scratch('housekeeping_cluster');
const warehouse = path.join(dir, 'warehouse');
const OWNER_ID = 'tarn_housekeeper000000001';
const OWNER_SECRET = 'housekeeping-owner-secret-0123456789';

const servers = [];
after(async () => {
  for (const s of servers) await s.stop();
});

const { ok, json } = tarnCli(bin, OWNER_ID, OWNER_SECRET);
const csv = path.join(dir, 'rows.csv');
fs.writeFileSync(csv, 'id,v\n1,10\n2,20\n');

async function serve(name, extra) {
  const s = await startServe({
    bin, catalog: '', logPath: path.join(dir, `${name}.log`), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET,
    args: ['--metastore', pg, '--warehouse', warehouse, ...extra],
  });
  servers.push(s);
  return s;
}

function metric(text, name, step) {
  const m = new RegExp(`^${name}\\{step="${step}"\\} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

test('two servers: each housekeeping slot runs once, audited, in /metrics', { skip: !pg }, async () => {
  // The first server creates the catalog with housekeeping off, so nothing runs half-way.
  const a = await serve('a', ['--no-housekeeping']);
  ok(a.url, ['workspace', 'create', 'shop']);
  ok(a.url, ['collection', 'create', 'shop.c']);
  for (const ds of ['shop.c.auto', 'shop.c.manual']) {
    ok(a.url, ['dataset', 'create', ds, '--schema', 'id INT64, v INT64']);
    for (let i = 0; i < 20; ++i) ok(a.url, ['append', ds, csv]);
  }
  ok(a.url, ['dataset', 'set', 'shop.c.auto', 'compaction.auto=true']);
  ok(a.url, ['workspace', 'set', 'shop', 'retention=0s']);
  await a.stop();
  servers.length = 0;
  const every = ['--expire-every', '1s', '--cleanup-every', '1s', '--compact-every', '1s'];
  const b = await serve('b', every);
  const c = await serve('c', every);

  await until(() => json(b.url, ['files', 'shop.c.auto']).length === 1, 60_000);
  // Retention expires what compaction replaced; the next passes find nothing to do.
  await until(() => json(b.url, ['snapshots', 'shop.c.auto']).length === 1, 60_000);
  await new Promise((r) => setTimeout(r, 3000));  // a few more slots on both servers
  assert.equal(json(c.url, ['files', 'shop.c.manual']).length, 20);
  assert.equal(json(c.url, ['snapshots', 'shop.c.manual']).length, 1);  // expired, not compacted
  const rows = json(c.url, ['sql', 'SELECT count(*)::INT AS n FROM shop.c.auto']);
  assert.equal(rows.n, 40);

  const audit = json(b.url, ['audit', '--workspace', 'shop', '--limit', '1000']);
  const records = Array.isArray(audit) ? audit : audit.records;
  const compactions = records.filter((r) => r.action === 'housekeeping.compact');
  assert.equal(compactions.length, 1, JSON.stringify(compactions));
  assert.equal(compactions[0].actor, 'tarn:housekeeping');
  assert.equal(compactions[0].outcome, 'ok');
  const expiries = records.filter((r) => r.action === 'housekeeping.expire' && r.target === 'shop.c.manual');
  assert.ok(expiries.length >= 1);

  const texts = await Promise.all([b, c].map(async (s) =>
    (await api(s.url, await mintToken(s.url, OWNER_ID, OWNER_SECRET), 'GET', '/metrics')).text));
  const sum = (name, step) => texts.map((t) => metric(t, name, step)).reduce((x, y) => x + y, 0);
  assert.equal(sum('tarn_housekeeping_files_rewritten_total', 'compact'), 20);
  assert.equal(sum('tarn_housekeeping_dataset_failures_total', 'compact'), 0);
  assert.ok(sum('tarn_housekeeping_runs_total', 'compact') >= 3);
  assert.ok(sum('tarn_housekeeping_snapshots_expired_total', 'expire') >= 19 + 19);
  assert.ok(sum('tarn_housekeeping_runs_total', 'cleanup') >= 1);
  // Each slot on one server: the runs of a step on both servers are at most one per second.
  const logs = [b, c].map((s) => fs.readFileSync(path.join(dir, `${s === b ? 'b' : 'c'}.log`), 'utf8'));
  const runs = logs.flatMap((l) => l.split('\n').filter((x) => x.startsWith('{')).map((x) => JSON.parse(x)))
    .filter((l) => l.type === 'housekeeping' && l.step === 'compact');
  assert.ok(runs.length >= 3);
});
