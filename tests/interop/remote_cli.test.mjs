// The CLI against `tarn serve`: the flows of dataset_cli.test.mjs run twice, once on an embedded
// catalog directory and once with `--catalog http://127.0.0.1:PORT` (credentials from the
// environment), and their --json outputs and exit codes must agree (ids, times, uuids and file
// paths aside). Then access control: a reader token is refused on append (exit 5), a bad secret
// is refused (exit 5), flags win over the environment, and a server that is down is exit 6.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';
import { freePort, startServe } from './tarn_process.mjs';
import { writeDatasetInputs } from './dataset_inputs.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('remote_cli');
const local = path.join(dir, 'embedded');
const served = path.join(dir, 'served');
const OWNER_ID = 'tarn_remoteclitestowner0';
const OWNER_SECRET = 'remote-cli-test-owner-secret-0123456789';
const D = 'acme.sales.orders';

let serve = null;
let url = '';
const serverLog = () => (serve ? serve.log() : '');
async function startServer() {
  serve = await startServe({ bin, catalog: served, logPath: path.join(dir, 'serve.log'), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET });
  url = serve.url;
}
const stopServer = async () => (serve ? serve.stop() : null);
after(stopServer);

function run(target, args, env = {}) {
  const r = spawnSync(bin, [...args, '--catalog', target], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    env: {
      ...process.env,
      NO_COLOR: '1',
      TARN_CATALOG: '',
      TARN_AUTHOR: 'tester',
      TARN_CLIENT_ID: OWNER_ID,
      TARN_CLIENT_SECRET: OWNER_SECRET,
      TARN_TOKEN: '',
      ...env,
    },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const remote = (args, env) => run(url, args, env);

function jsonError(r) {
  return JSON.parse(r.err.trim().split('\n').pop()).error;
}

// What legitimately differs between two catalogs: uuids, times, commit ids and object paths
// (which carry the dataset's uuid).
const volatile = /(^|_)uuid$|_at(_us)?$|^commit_id$|^path$|^paths$/;
function norm(v) {
  if (Array.isArray(v)) return v.map(norm);
  if (v && typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) {
      if (!volatile.test(k)) out[k] = norm(x);
    }
    return out;
  }
  return v;
}

// Runs a command on both catalogs: the same exit code, and (for --json) the same output.
function both(args, env) {
  const e = run(local, args, env);
  const r = remote(args, env);
  assert.equal(r.code, e.code,
    `tarn ${args.join(' ')}: embedded exit ${e.code}, remote exit ${r.code}\n${e.err}\n${r.err}`);
  return { e, r };
}

// A --json command that must succeed on both with equal output; returns the remote result.
function same(args, env) {
  const { e, r } = both([...args, '--json'], env);
  assert.equal(r.code, 0, `tarn ${args.join(' ')} failed: ${r.err}`);
  const ej = JSON.parse(e.out);
  const rj = JSON.parse(r.out);
  assert.deepEqual(norm(rj), norm(ej), `tarn ${args.join(' ')}: outputs differ`);
  return rj;
}

// A command that must fail the same way on both (exit code and error code).
function sameError(args, code, errorCode) {
  const { e, r } = both([...args, '--json']);
  assert.equal(r.code, code, `tarn ${args.join(' ')}: ${r.err}`);
  if (errorCode) {
    assert.equal(jsonError(r).code, errorCode, r.err);
    assert.equal(jsonError(e).code, errorCode, e.err);
  }
  // The same error; the server may add the request field it blames (`field`).
  const { field, ...remoteError } = jsonError(r);
  assert.deepEqual(norm(remoteError), norm(jsonError(e)));
  return jsonError(r);
}

// Scan rows (NDJSON) of both, equal as sets.
function sameScan(args = []) {
  const { e, r } = both(['scan', D, ...args, '--json']);
  assert.equal(r.code, 0, r.err);
  const rows = (out) => out.split('\n').filter((l) => l).map((l) => JSON.parse(l));
  const key = (x) => JSON.stringify(x);
  const er = rows(e.out).map(key).sort();
  const rr = rows(r.out).map(key).sort();
  assert.deepEqual(rr, er);
  return rows(r.out);
}

const { csvA, ndjsonB } = writeDatasetInputs(dir);

test('tarn serve starts with the bootstrap owner from the environment', async () => {
  await startServer();
  const who = JSON.parse(remote(['whoami', '--json']).out);
  assert.equal(who.actor, OWNER_ID);
  assert.equal(who.remote, true);
  assert.equal(who.role, 'owner');
  assert.equal(who.workspace, '*');
  const embedded = JSON.parse(run(local, ['whoami', '--json']).out);
  assert.equal(embedded.remote, false);
  assert.match(embedded.actor, /^local:/);
});

test('workspaces, collections and a partitioned dataset: the same remotely', () => {
  same(['workspace', 'create', 'acme']);
  same(['collection', 'create', 'acme.sales', '--description', 'sales ✓']);
  const ds = same(['dataset', 'create', D,
    '--schema', 'id INT64 NOT NULL, ts TIMESTAMP[us], region VARCHAR, amount DECIMAL(10,2), score FLOAT64',
    '--partition', 'region, month(ts)', '--sort', 'id', '--description', 'the orders',
    '--property', 'owner=sales']);
  assert.equal(ds.name, D);
  assert.equal(ds.partition.text, 'region, month(ts)');
  same(['workspace', 'show', 'acme']);
  same(['workspace', 'list']);
  same(['collection', 'list', 'acme']);
  same(['collection', 'show', 'acme.sales']);
  same(['dataset', 'list', 'acme.sales']);
  same(['dataset', 'show', D]);
  same(['workspace', 'set', 'acme', 'team=data']);
  assert.equal(both(['workspace', 'unset', 'acme', 'team']).r.code, 0);

  sameError(['workspace', 'create', 'acme'], 3, 'already_exists');
  sameError(['dataset', 'create', D, '--schema', 'id INT64'], 3);
  sameError(['dataset', 'create', 'acme.sales.x', '--schema', 'id NOPE'], 2);
  sameError(['dataset', 'create', 'acme.sales.x', '--schema', 'id INT64', '--partition', 'month(id)'], 2);
  sameError(['dataset', 'show', 'acme.sales.nope'], 3, 'dataset_not_found');
  sameError(['collection', 'show', 'acme.nope'], 3, 'collection_not_found');
  sameError(['workspace', 'show', 'bad name'], 2);
  // The text forms match too.
  const { e, r } = both(['dataset', 'list', 'acme.sales']);
  assert.equal(r.out.split(/\s+/)[0], 'name');
  assert.equal(r.out.split('\n')[0], e.out.split('\n')[0]);
});

let snap1, snap2;

test('append CSV and NDJSON, scan, files, snapshots and time travel', () => {
  const s1 = same(['append', D, csvA, '-m', 'first load']);
  assert.equal(s1.snapshot_id, 1);
  assert.equal(s1.added_records, 5);
  assert.equal(s1.author, 'tester');
  assert.deepEqual(s1.receipt.read_sources, []);
  snap1 = s1.snapshot_id;
  const s2 = same(['append', D, ndjsonB]);
  snap2 = s2.snapshot_id;
  assert.equal(s2.total_records, 8);

  assert.equal(same(['snapshots', D]).length, 2);
  const files = same(['files', D]);
  assert.equal(files.reduce((n, f) => n + f.records, 0), 8);
  assert.ok(files.every((f) => fs.existsSync(path.join(served, 'warehouse', f.path))));
  same(['files', D, '--where', "region = 'eu'"]);
  same(['files', D, '--at', String(snap1)]);

  assert.equal(sameScan().length, 8);
  assert.equal(sameScan(['--at', String(snap1)]).length, 5);
  assert.equal(sameScan(['--tag', 'previous']).length, 5);
  assert.equal(sameScan(['--where', 'id >= 6']).length, 3);
  sameScan(['--row-ids']);
  same(['dataset', 'show', D, '--at', String(snap1)]);

  // --at-time: each catalog's own commit time.
  const t1 = JSON.parse(remote(['snapshots', D, '--json']).out)[0].committed_at;
  const rows = remote(['scan', D, '--at-time', t1, '--json']).out.trim().split('\n');
  assert.equal(rows.length, 5);

  // Text output of a scan: the same table.
  const { e, r } = both(['scan', D, '--limit', '3']);
  assert.equal(r.out, e.out);
  // An empty dataset scans to a header only, remotely too.
  same(['dataset', 'create', 'acme.sales.empty', '--schema', 'a INT64, b VARCHAR']);
  const empty = both(['scan', 'acme.sales.empty']);
  assert.equal(empty.r.out, empty.e.out);
  assert.match(empty.r.out, /^a\s+b\n$/);

  // Idempotent retry: the same snapshot back, nothing new.
  const k1 = same(['append', D, csvA, '--idempotency-key', 'load-k']);
  const k2 = same(['append', D, csvA, '--idempotency-key', 'load-k']);
  assert.equal(k2.snapshot_id, k1.snapshot_id);
  assert.equal(k2.idempotent_replay, true);

  // Bad input fails the same way, and nothing is committed.
  const bad = path.join(dir, 'bad.csv');
  fs.writeFileSync(bad, 'id,region\n20,eu\nabc,us\n');
  const err = sameError(['append', D, bad], 3, 'value_not_castable');
  assert.equal(err.column, 'id');
  same(['snapshots', D]);
  sameError(['scan', D, '--at', '999'], 3, 'snapshot_not_found');
  sameError(['scan', D, '--where', 'nope = 1'], 2);
  sameError(['append', 'acme.sales.nope', csvA], 3, 'dataset_not_found');
});

test('tags, delete, changes, offsets, rollback, schema changes, expiry', () => {
  assert.deepEqual(same(['tag', 'create', D, 'nightly', '--at', String(snap2)]),
    { tag: 'nightly', snapshot_id: snap2 });
  same(['tag', 'create', D, 'latest']);
  sameError(['tag', 'create', D, 'nightly'], 3);
  sameError(['tag', 'create', D, 'current'], 2, 'reserved_name');
  same(['tag', 'list', D]);
  assert.equal(sameScan(['--tag', 'nightly']).length, 8);
  assert.equal(both(['tag', 'drop', D, 'latest']).r.code, 0);
  sameError(['scan', D, '--tag', 'latest'], 3, 'tag_not_found');

  const d = same(['delete', D, '--where', "region = 'eu'", '-m', 'gdpr']);
  assert.equal(d.operation, 'delete_rows');
  assert.ok(sameScan().every((r) => r.region !== 'eu'));
  assert.deepEqual(same(['delete', D, '--where', "region = 'eu'"]), { snapshot_id: null, deleted_records: 0 });

  same(['changes', D, '--from', String(snap1), '--to', String(snap2)]);
  same(['changes', D, '--from', String(snap2)]);
  sameError(['changes', D, '--from', '99'], 2);

  assert.deepEqual(same(['offset', 'show', D, 'etl']), { consumer: 'etl', snapshot_id: null });
  same(['offset', 'commit', D, 'etl', '2']);
  sameError(['offset', 'commit', D, 'etl', '1'], 3, 'offset_regression');
  same(['offset', 'commit', D, 'etl']);
  same(['offset', 'show', D, 'etl']);

  const rb = same(['rollback', D, String(snap2), '-m', 'undo']);
  assert.equal(rb.operation, 'rollback');
  sameError(['rollback', D, '77'], 3);
  sameScan();

  same(['dataset', 'alter', D, 'add note VARCHAR', 'rename score TO rating']);
  sameScan(['--at', String(snap1)]);
  same(['dataset', 'set', D, 'x=1']);
  same(['dataset', 'unset', D, 'x']);
  same(['dataset', 'partition', D, 'bucket(4, id)']);
  same(['dataset', 'sort', D, 'id DESC']);
  const e = path.join(dir, 'e.csv');
  fs.writeFileSync(e, 'id,note\n100,x\n101,y\n');
  same(['append', D, e]);
  same(['files', D]);
  same(['dataset', 'rename', D, 'orders2']);
  same(['dataset', 'rename', 'acme.sales.orders2', 'orders']);

  same(['expire', D, '--older-than', '0s', '--dry-run']);
  same(['expire', D, '--older-than', '0s']);
  same(['cleanup']);
  sameScan();
});

test('access tokens: a reader is refused on append (exit 5) and may scan', () => {
  const t = JSON.parse(remote(['token', 'create', '--workspace', 'acme', '--role', 'reader', '--json']).out);
  assert.match(t.client_id, /^tarn_/);
  assert.ok(t.client_secret.length >= 32);
  const asReader = { TARN_CLIENT_ID: t.client_id, TARN_CLIENT_SECRET: t.client_secret };

  const small = path.join(dir, 'small.csv');
  fs.writeFileSync(small, 'id,note\n500,x\n');
  const refused = remote(['append', D, small, '--json'], asReader);
  assert.equal(refused.code, 5, refused.err);
  assert.equal(jsonError(refused).code, 'permission_denied');
  const denied = remote(['dataset', 'drop', D, '--json'], asReader);
  assert.equal(denied.code, 5);

  const rows = remote(['scan', D, '--json'], asReader);
  assert.equal(rows.code, 0, rows.err);
  assert.ok(rows.out.trim().split('\n').length > 0);
  const who = JSON.parse(remote(['whoami', '--json'], asReader).out);
  assert.deepEqual([who.actor, who.role, who.workspace], [t.client_id, 'reader', 'acme']);
  // Listing shows only what the token may read.
  assert.deepEqual(JSON.parse(remote(['workspace', 'list', '--json'], asReader).out).map((w) => w.name), ['acme']);

  const tokens = JSON.parse(remote(['token', 'list', '--json']).out);
  assert.ok(tokens.some((x) => x.client_id === t.client_id));
  assert.equal(remote(['token', 'revoke', t.client_id]).code, 0);
  const revoked = remote(['scan', D, '--json'], asReader);
  assert.equal(revoked.code, 5, revoked.err);
});

test('bad secrets are refused with exit 5; flags win over the environment', async () => {
  const bad = remote(['workspace', 'list', '--json'], { TARN_CLIENT_SECRET: 'not-the-secret-at-all' });
  assert.equal(bad.code, 5, bad.err);
  assert.equal(jsonError(bad).code, 'invalid_client');
  const none = remote(['workspace', 'list', '--json'], { TARN_CLIENT_ID: '', TARN_CLIENT_SECRET: '' });
  assert.equal(none.code, 5);

  // A wrong --client-secret flag beats the right one in the environment...
  assert.equal(remote(['workspace', 'list', '--client-secret', 'wrong-wrong-wrong']).code, 5);
  // ...and the right flags beat a wrong environment.
  const flags = remote(['workspace', 'list', '--client-id', OWNER_ID, '--client-secret', OWNER_SECRET],
    { TARN_CLIENT_ID: 'tarn_nobody', TARN_CLIENT_SECRET: 'nothing-here-at-all' });
  assert.equal(flags.code, 0, flags.err);

  // A bearer token taken as is (--token, or TARN_TOKEN without a client secret).
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: OWNER_ID, client_secret: OWNER_SECRET });
  const res = await fetch(`${url}/v1/token`, { method: 'POST', body: form });
  assert.equal(res.status, 200);
  const { access_token: bearer } = await res.json();
  const withToken = remote(['whoami', '--json', '--token', bearer], { TARN_CLIENT_ID: '', TARN_CLIENT_SECRET: '' });
  assert.equal(withToken.code, 0, withToken.err);
  assert.equal(JSON.parse(withToken.out).actor, OWNER_ID);
  const envToken = remote(['workspace', 'list', '--json'], { TARN_CLIENT_ID: '', TARN_CLIENT_SECRET: '', TARN_TOKEN: bearer });
  assert.equal(envToken.code, 0, envToken.err);
  const badToken = remote(['workspace', 'list', '--json', '--token', 'not.a.jwt']);
  assert.equal(badToken.code, 5);
  assert.equal(jsonError(badToken).code, 'invalid_token');
});

test('a server that is down is exit 6, naming the URL', async () => {
  const code = await stopServer();
  assert.equal(code, 0, `tarn serve exited ${code} on SIGTERM: ${serverLog()}`);
  const down = remote(['workspace', 'list', '--json']);
  assert.equal(down.code, 6, down.err);
  assert.equal(jsonError(down).url, url);
  const port = await freePort();
  const never = run(`http://127.0.0.1:${port}`, ['scan', D]);
  assert.equal(never.code, 6);
  assert.match(never.err, new RegExp(`127\\.0\\.0\\.1:${port}`));
  // A malformed URL is a usage error.
  assert.equal(run('http://127.0.0.1:99999', ['workspace', 'list']).code, 2);
});
