// Retention policies through the CLI (docs/design/maintenance.md "Retention"): `tarn expire`
// without a dataset applies the workspace's and datasets' `retention` properties (a dataset's
// beats its workspace's; `retention.consumer_floor=false` lifts the consumers' floor), embedded
// and through `tarn serve`, where a workspace-scoped owner applies only its own workspace's.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';
import { startServe, tarnCli } from './tarn_process.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('retention');
const OWNER_ID = 'tarn_retentionowner0000001';
const OWNER_SECRET = 'retention-test-owner-secret-0123456';

const stops = [];
after(async () => {
  for (const s of stops.reverse()) await s();
});

const { ok, json, fails } = tarnCli(bin, OWNER_ID, OWNER_SECRET);
const csv = path.join(dir, 'rows.csv');
fs.writeFileSync(csv, 'id\n1\n2\n');

function setUp(t) {
  for (const ws of ['shop', 'lab']) {
    ok(t, ['workspace', 'create', ws]);
    ok(t, ['collection', 'create', `${ws}.c`]);
  }
  for (const ds of ['shop.c.inherits', 'shop.c.own', 'shop.c.floor', 'lab.c.none']) {
    ok(t, ['dataset', 'create', ds, '--schema', 'id INT64']);
    for (let i = 0; i < 3; ++i) ok(t, ['append', ds, csv]);
  }
  ok(t, ['offset', 'commit', 'shop.c.floor', 'reader', '1']);
  ok(t, ['workspace', 'set', 'shop', 'retention=0s']);
  ok(t, ['dataset', 'set', 'shop.c.own', 'retention=30d']);
}

function check(t) {
  const plan = json(t, ['expire', '--dry-run']);
  assert.equal(plan.dry_run, true);
  assert.equal(plan.without_policy, 1);
  assert.deepEqual(plan.datasets.map((d) => d.dataset), ['shop.c.floor', 'shop.c.inherits', 'shop.c.own']);
  assert.equal(json(t, ['snapshots', 'shop.c.inherits']).length, 3);
  const r = json(t, ['expire']);
  const by = Object.fromEntries(r.datasets.map((d) => [d.dataset, d]));
  assert.deepEqual([by['shop.c.inherits'].source, by['shop.c.inherits'].expiry.expired_through], ['workspace', 2]);
  assert.deepEqual([by['shop.c.own'].source, by['shop.c.own'].expiry.expired_snapshots], ['dataset', 0]);
  assert.equal(by['shop.c.floor'].expiry.expired_through, 1);
  assert.equal(json(t, ['snapshots', 'shop.c.inherits']).length, 1);
  assert.equal(json(t, ['snapshots', 'lab.c.none']).length, 3);
  // The floor lifted.
  ok(t, ['dataset', 'set', 'shop.c.floor', 'retention.consumer_floor=false']);
  const again = json(t, ['expire', '--workspace', 'shop']);
  assert.equal(again.datasets.find((d) => d.dataset === 'shop.c.floor').expiry.expired_through, 2);
  assert.match(ok(t, ['expire']), /3 datasets with a policy, 1 without/);
  // Bad input.
  fails(t, ['dataset', 'set', 'shop.c.own', 'retention=soon'], 'invalid_property', 2);
  fails(t, ['expire', '--older-than', '1d'], '', 2);
  fails(t, ['expire', 'shop.c.own'], '', 2);
}

test('embedded: tarn expire applies every policy', () => {
  const t = path.join(dir, 'embedded');
  setUp(t);
  check(t);
});

test('through tarn serve: the same, and a scoped owner applies its own workspace only', async () => {
  const catalog = path.join(dir, 'served');
  const server = await startServe({ bin, catalog, logPath: path.join(dir, 'serve.log'), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET });
  stops.push(server.stop);
  setUp(server.url);
  check(server.url);
  const lab = json(server.url, ['token', 'create', '--workspace', 'lab', '--role', 'owner']);
  const asLab = tarnCli(bin, lab.client_id, lab.client_secret);
  const r = asLab.json(server.url, ['expire']);
  assert.deepEqual(r.datasets, []);
  assert.equal(r.without_policy, 1);
  asLab.fails(server.url, ['expire', '--workspace', 'shop'], 'permission_denied', 5);
  const reader = json(server.url, ['token', 'create', '--workspace', 'lab', '--role', 'reader']);
  tarnCli(bin, reader.client_id, reader.client_secret).fails(server.url, ['expire'], 'permission_denied', 5);
});
