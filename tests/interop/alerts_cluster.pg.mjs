// Alerts across a cluster on PostgreSQL (run by tests/run_with_pg.sh as
// integration.pg.alerts_cluster): three `tarn serve` processes on one metastore and warehouse,
// each with the stdout and webhook sinks pointed at an HTTP server of this test.
// - The same failure raised on all three servers (a commit without a receipt through each) is
//   delivered once: one webhook POST, one stdout line in the three logs, three raises counted.
// - `--fsck-every 1s` on all three: each slot is swept by one server; a file deleted from the
//   warehouse is found by sweeps on more than one server and delivered once.
// - A webhook that accepts connections and never answers neither slows nor fails commits.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';
import { mintToken, api } from './hostile_util.mjs';
import { runTarn, startServe, tarnEnv, until } from './tarn_process.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const pg = process.env.TARN_TEST_PG_URI;
const dir = scratch('alerts_cluster');
const warehouse = path.join(dir, 'warehouse');
const OWNER_ID = 'tarn_alertsowner000000001';
const OWNER_SECRET = 'alerts-owner-secret-0123456789abcdef';
const env = tarnEnv(OWNER_ID, OWNER_SECRET);

// The webhook: every POST body, parsed.
const posts = [];
const hook = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    posts.push(JSON.parse(body));
    res.writeHead(204).end();
  });
});
await new Promise((r) => hook.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${hook.address().port}/hook`;
// A webhook that is down the bad way: it accepts and never answers.
const hung = [];
const silent = net.createServer((sock) => { hung.push(sock); });
await new Promise((r) => silent.listen(0, '127.0.0.1', r));
const silentUrl = `http://127.0.0.1:${silent.address().port}/hook`;

const servers = [];
after(async () => {
  for (const s of servers) await s.stop();
  for (const s of hung) s.destroy();
  hook.close();
  silent.close();
});

async function serve(name, webhook, extra = [], extraEnv = {}) {
  const s = await startServe({
    bin, catalog: '', logPath: path.join(dir, `${name}.log`), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET,
    args: ['--metastore', pg, '--warehouse', warehouse, ...extra],
    env: {
      TARN_ALERTS_SINK: 'stdout,webhook',
      TARN_ALERTS_WEBHOOK_URL: webhook,
      TARN_ALERTS_COMPONENT: 'cluster-test',
      ...extraEnv,
    },
  });
  s.name = name;
  s.fullLog = () => fs.readFileSync(path.join(dir, `${name}.log`), 'utf8');
  servers.push(s);
  return s;
}
const ok = (target, args) => {
  const r = runTarn(bin, target, args, env);
  assert.equal(r.code, 0, `tarn ${args.join(' ')}: ${r.err}`);
  return r.out;
};
const json = (target, args) => JSON.parse(ok(target, [...args, '--json']));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// The JSON lines of a server's log of one kind: alert lines (by code) or its fsck runs.
const lines = (s) => s.fullLog().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
const alertLines = (s, code) => lines(s).filter((l) => l.alert && l.alert.code === code);
const fsckRuns = (s) => lines(s).filter((l) => l.type === 'fsck');
const hooked = (code) => posts.filter((p) => p.alert.code === code);
// A delete over HTTP whose body carries no receipt (an SDK caller passing none): it lands and
// raises receipt_missing.
async function deleteWithoutReceipt(url, where) {
  const token = await mintToken(url, OWNER_ID, OWNER_SECRET);
  return api(url, token, 'POST', '/v1/workspaces/shop/collections/sales/datasets/orders/delete', { where });
}

let a, b, c;
test('one failure raised on three servers is delivered once', async () => {
  assert.ok(pg, 'TARN_TEST_PG_URI (tests/run_with_pg.sh)');
  [a, b, c] = [await serve('a', hookUrl), await serve('b', hookUrl), await serve('c', hookUrl)];
  ok(a.url, ['workspace', 'create', 'shop']);
  ok(a.url, ['collection', 'create', 'shop.sales']);
  ok(a.url, ['dataset', 'create', 'shop.sales.orders', '--schema', 'id INT64 NOT NULL, region VARCHAR']);
  const csv = path.join(dir, 'rows.csv');
  fs.writeFileSync(csv, 'id,region\n' + Array.from({ length: 30 }, (_, i) => `${i},r${i % 3}`).join('\n') + '\n');
  ok(a.url, ['append', 'shop.sales.orders', csv]);
  for (const [i, s] of [a, b, c].entries()) {
    const r = await deleteWithoutReceipt(s.url, `id = ${i}`);
    assert.equal(r.status, 200, r.text);
  }
  await until(() => hooked('receipt_missing').length >= 1);
  await sleep(1500);  // time for a second delivery, which must not come
  assert.equal(hooked('receipt_missing').length, 1, JSON.stringify(posts));
  const p = hooked('receipt_missing')[0];
  assert.equal(p.alert.object, 'shop.sales.orders');
  assert.equal(p.alert.component, 'cluster-test');
  assert.equal(p.severity, 'ERROR');
  const stdoutLines = [a, b, c].flatMap((s) => alertLines(s, 'receipt_missing'));
  assert.equal(stdoutLines.length, 1, stdoutLines.map((l) => JSON.stringify(l)).join('\n'));
  const listed = json(b.url, ['alerts', 'list', '--code', 'receipt_missing']);
  assert.deepEqual(listed.map((x) => [x.object, x.count]), [['shop.sales.orders', 3]]);
  // Each commit is audited with the missing receipt, whichever server took it.
  const audit = json(c.url, ['audit', '--workspace', 'shop']).filter((x) => x.action === 'dataset.missing_receipt');
  assert.equal(audit.length, 3);
});

test('the scheduled sweep runs each slot on one server and alerts once', async () => {
  for (const s of servers.splice(0)) await s.stop();
  const every = ['--fsck-every', '1s'];
  [a, b, c] = [await serve('fa', hookUrl, every), await serve('fb', hookUrl, every), await serve('fc', hookUrl, every)];
  const started = Date.now();
  // Damage: a live data file of the dataset goes from the warehouse.
  const files = json(a.url, ['files', 'shop.sales.orders']);
  assert.ok(files.length >= 1);
  const victim = files[0].path;
  const kept = fs.readFileSync(path.join(warehouse, victim));
  fs.rmSync(path.join(warehouse, victim));
  const deleted = Date.now();
  try {
    await sweptTwice(victim, deleted, started);
  } finally {
    fs.writeFileSync(path.join(warehouse, victim), kept);
  }
});

// Sweeps after the deletion on at least two servers found it, and it was delivered once.
async function sweptTwice(victim, deleted, started) {
  await until(() => {
    const finders = [a, b, c].filter((s) => fsckRuns(s).some((r) => Date.parse(r.time) > deleted && r.findings > 0));
    const row = json(a.url, ['alerts', 'list', '--code', 'missing_object'])[0];
    return finders.length >= 2 && row && row.count >= 2;
  }, 60_000);
  await sleep(1500);
  const missing = hooked('missing_object');
  assert.equal(missing.length, 1, JSON.stringify(missing));
  assert.equal(missing[0].severity, 'CRITICAL');
  assert.equal(missing[0].alert.object, victim);
  assert.equal([a, b, c].flatMap((s) => alertLines(s, 'missing_object')).length, 1);
  const row = json(a.url, ['alerts', 'list', '--code', 'missing_object'])[0];
  assert.ok(row.count >= 2, JSON.stringify(row));
  // One sweep per claimed slot: three servers polling every second over the elapsed time ran
  // about one sweep a second between them, not three.
  const runs = [a, b, c].flatMap(fsckRuns);
  const elapsed = (Date.now() - started) / 1000;
  assert.ok(runs.length <= Math.ceil(elapsed) + 2, `${runs.length} sweeps in ${elapsed} s`);
  for (const r of runs) assert.ok(r.datasets_checked >= 1, JSON.stringify(r));
  // The metric moves on the servers that swept.
  const metrics = await Promise.all([a, b, c].map(async (s) =>
    (await api(s.url, await mintToken(s.url, OWNER_ID, OWNER_SECRET), 'GET', '/metrics')).text));
  const total = metrics.map((m) => Number(/^tarn_fsck_runs_total (\d+)$/m.exec(m)[1])).reduce((x, y) => x + y, 0);
  assert.ok(total >= 2 && total <= runs.length + 3, `${total} runs in /metrics, ${runs.length} logged`);
  // `tarn fsck` by hand sees the same finding.
  const r = runTarn(bin, a.url, ['fsck', '--json'], env);
  assert.equal(r.code, 3, r.err);
  assert.ok(JSON.parse(r.out).findings.some((f) => f.code === 'missing_object' && f.object === victim));
}

test('a webhook that never answers neither slows nor fails commits', async () => {
  for (const s of servers.splice(0)) await s.stop();
  // Every raise is delivered (no cool-off), so each commit queues a webhook POST that hangs.
  const d = await serve('d', silentUrl, [], { TARN_ALERTS_COOLOFF_HOURS: '0' });
  const slowest = [];
  for (let i = 10; i < 20; i++) {
    const t0 = Date.now();
    const r = await deleteWithoutReceipt(d.url, `id = ${i}`);
    slowest.push(Date.now() - t0);
    assert.equal(r.status, 200, r.text);
  }
  await until(() => hung.length >= 1, 10_000);  // the webhook was tried
  // One attempt waits 5 s for its answer; a commit that waited for it would take that long.
  assert.ok(Math.max(...slowest) < 2500, `commit latencies (ms): ${slowest}`);
  const listed = json(d.url, ['alerts', 'list', '--code', 'receipt_missing']);
  assert.ok(listed[0].count >= 13, JSON.stringify(listed));
  // Every raise went to stdout, synchronously, whatever the webhook does.
  assert.equal(alertLines(d, 'receipt_missing').length, 10);
});
