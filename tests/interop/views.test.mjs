// Views (V1) end to end, embedded and through `tarn serve`: `tarn view create|replace|show|list|
// versions|drop`, `tarn sql` reading a view and a view over a view (judged by an independent
// DuckDB over a flat Parquet copy of the same rows), statement versions, execution metadata,
// views of another dialect (stored, shown, unsupported_dialect when run), a circle of views,
// the namespace shared with datasets, and remotely the roles and a token of another workspace.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { query, quote, scratch } from './duckdb_compare.mjs';
import { runTarn, startServe, tarnEnv } from './tarn_process.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('views');
const catalog = path.join(dir, 'catalog');
const OWNER_ID = 'tarn_viewtestowner0000001';
const OWNER_SECRET = 'view-test-owner-secret-0123456789abcdef';

let serve = null;
after(async () => (serve ? serve.stop() : null));

const run = (args, { target = catalog, env = {} } = {}) =>
  runTarn(bin, target, args, tarnEnv(OWNER_ID, OWNER_SECRET, env));
function ok(args, opts) {
  const r = run(args, opts);
  assert.equal(r.code, 0, `tarn ${args.join(' ')}: ${r.err}`);
  return r.out;
}
const json = (args, opts) => JSON.parse(ok([...args, '--json'], opts));
const jsonError = (r) => JSON.parse(r.err.trim().split('\n').pop()).error;
function fails(args, code, exit, opts) {
  const r = run([...args, '--json'], opts);
  assert.equal(r.code, exit, `tarn ${args.join(' ')}: ${r.err}`);
  assert.equal(jsonError(r).code, code, r.err);
  return jsonError(r);
}

const flat = path.join(dir, 'orders.parquet');
const BIG = 'SELECT region, count(*) AS n, sum(amount) AS total FROM acme.sales.big_orders GROUP BY region';

test('build a dataset and its flat copy', async () => {
  const csv = path.join(dir, 'orders.csv');
  await query(`COPY (SELECT i AS id, ['eu','us','apac'][(i % 3) + 1] AS region,
      ((i * 37) % 10000 / 100)::DECIMAL(10,2) AS amount FROM range(0, 5000) t(i)) TO ${quote(csv)} (HEADER)`);
  await query(`COPY (SELECT * FROM read_csv(${quote(csv)}, header = true,
      columns = {'id': 'BIGINT', 'region': 'VARCHAR', 'amount': 'DECIMAL(10,2)'})) TO ${quote(flat)}`);
  ok(['workspace', 'create', 'acme']);
  ok(['workspace', 'set', 'acme', 'deletion_protection=false']);
  ok(['collection', 'create', 'acme.sales']);
  ok(['dataset', 'create', 'acme.sales.orders', '--schema', 'id INT64 NOT NULL, region VARCHAR, amount DECIMAL(10,2)',
    '--partition', 'region']);
  ok(['append', 'acme.sales.orders', csv]);
});

async function sameRows(resultFile, judgeSql) {
  const mine = `read_parquet(${quote(resultFile)})`;
  const [c] = await query(`SELECT (SELECT count(*) FROM ${mine})::INT AS mine, (SELECT count(*) FROM (${judgeSql}))::INT AS theirs,
      (SELECT count(*) FROM (SELECT * FROM ${mine} EXCEPT ALL ${judgeSql}))::INT AS extra,
      (SELECT count(*) FROM (${judgeSql} EXCEPT ALL SELECT * FROM ${mine}))::INT AS missing`);
  assert.deepEqual(c, { mine: c.theirs, theirs: c.theirs, extra: 0, missing: 0 }, judgeSql);
  assert.ok(c.theirs > 0);
}

function exercise(target, tag) {
  const opts = { target };
  return async () => {
    const v1 = json(['view', 'create', 'acme.sales.big_orders', '--sql', 'SELECT * FROM acme.sales.orders WHERE amount > 50',
      '--description', 'orders over 50', '--schema', 'id INT64 NOT NULL, region VARCHAR, amount DECIMAL(10,2)'], opts);
    assert.equal(v1.version, 1);
    assert.equal(v1.dialect, 'duckdb');
    assert.equal(v1.description, 'orders over 50');
    assert.equal(v1.schema.length, 3);
    assert.equal(v1.last_run_at, null);
    // A view over the view; tarn sql resolves both; DuckDB judges over the flat copy.
    ok(['view', 'create', 'acme.sales.by_region', '--sql', BIG], opts);
    const out = path.join(dir, `${tag}-by_region.parquet`);
    ok(['sql', 'SELECT * FROM acme.sales.by_region', '--output', out], opts);
    await sameRows(out, `SELECT region, count(*) AS n, sum(amount) AS total FROM read_parquet(${quote(flat)}) WHERE amount > 50 GROUP BY region`);
    // Each view the query read records the run.
    const shown = json(['view', 'show', 'acme.sales.big_orders'], opts);
    assert.equal(shown.last_row_count, 3);
    assert.ok(shown.last_run_at && shown.last_run_seconds >= 0);
    // A new statement version; the old stays readable; the description is kept.
    const v2 = json(['view', 'replace', 'acme.sales.big_orders', '--sql', 'SELECT * FROM acme.sales.orders WHERE amount > 90'], opts);
    assert.equal(v2.version, 2);
    assert.equal(v2.description, 'orders over 50');
    assert.equal(json(['view', 'show', 'acme.sales.big_orders', '--version', '1'], opts).sql,
      'SELECT * FROM acme.sales.orders WHERE amount > 50');
    assert.deepEqual(json(['view', 'versions', 'acme.sales.big_orders'], opts).map((v) => v.version), [1, 2]);
    const out2 = path.join(dir, `${tag}-by_region2.parquet`);
    ok(['sql', 'SELECT * FROM acme.sales.by_region', '--output', out2], opts);
    await sameRows(out2, `SELECT region, count(*) AS n, sum(amount) AS total FROM read_parquet(${quote(flat)}) WHERE amount > 90 GROUP BY region`);
    // --into records the view's datasets in the receipt.
    const into = json(['sql', 'SELECT * FROM acme.sales.big_orders', '--into', 'acme.sales.big_copy', '--create'], opts);
    assert.deepEqual(into.snapshot.receipt.read_sources.map((r) => r.dataset), ['acme.sales.orders']);
    // Another dialect: stored and shown, not run.
    ok(['view', 'create', 'acme.sales.trino_view', '--sql', 'SELECT approx_percentile(amount, 0.5) FROM acme.sales.orders',
      '--dialect', 'trino'], opts);
    assert.equal(json(['view', 'show', 'acme.sales.trino_view'], opts).dialect, 'trino');
    const e = fails(['sql', 'SELECT * FROM acme.sales.trino_view'], 'unsupported_dialect', 2, opts);
    assert.equal(e.dialect, 'trino');
    // A circle of views is found when run.
    ok(['view', 'create', 'acme.sales.a', '--sql', 'SELECT * FROM acme.sales.b', '--no-check'], opts);
    ok(['view', 'create', 'acme.sales.b', '--sql', 'SELECT * FROM acme.sales.a'], opts);
    fails(['sql', 'SELECT * FROM acme.sales.a'], 'view_cycle', 2, opts);
    // Bad SQL is refused before anything is stored; a missing name says both kinds.
    fails(['view', 'create', 'acme.sales.bad', '--sql', 'SELEC 1'], 'sql_syntax_error', 2, opts);
    fails(['view', 'create', 'acme.sales.bad', '--sql', 'DELETE FROM acme.sales.orders'], 'sql_not_a_query', 2, opts);
    fails(['view', 'show', 'acme.sales.bad'], 'view_not_found', 3, opts);
    fails(['sql', 'SELECT * FROM acme.sales.bad'], 'dataset_not_found', 3, opts);
    // One namespace with datasets.
    fails(['view', 'create', 'acme.sales.orders', '--sql', 'SELECT 1'], 'dataset_exists', 3, opts);
    fails(['dataset', 'create', 'acme.sales.a', '--schema', 'x INT64'], 'view_exists', 3, opts);
    fails(['view', 'create', 'acme.sales.a', '--sql', 'SELECT 1'], 'view_exists', 3, opts);
    const names = json(['view', 'list', 'acme.sales'], opts).map((v) => v.name);
    assert.deepEqual(names, ['acme.sales.a', 'acme.sales.b', 'acme.sales.big_orders', 'acme.sales.by_region', 'acme.sales.trino_view']);
  };
}

function cleanup(target) {
  for (const v of ['a', 'b', 'big_orders', 'by_region', 'trino_view']) ok(['view', 'drop', `acme.sales.${v}`], { target });
  ok(['dataset', 'drop', 'acme.sales.big_copy', '--purge'], { target });
  assert.deepEqual(json(['view', 'list', 'acme.sales'], { target }), []);
}

test('embedded: views end to end', async () => {
  await exercise(catalog, 'embedded')();
  fails(['collection', 'drop', 'acme.sales'], 'collection_not_empty', 3);
  cleanup(catalog);
});

test('remote: the same through tarn serve; roles and another workspace', async () => {
  serve = await startServe({ bin, catalog, logPath: path.join(dir, 'serve.log'), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET });
  await exercise(serve.url, 'remote')();
  const token = (ws, role) => {
    const t = json(['token', 'create', '--workspace', ws, '--role', role], { target: serve.url });
    return { TARN_CLIENT_ID: t.client_id, TARN_CLIENT_SECRET: t.client_secret };
  };
  const reader = token('acme', 'reader');
  const asReader = { target: serve.url, env: reader };
  // A reader reads a view (and its run is recorded), and may not create or drop one.
  const before = json(['view', 'show', 'acme.sales.big_orders'], asReader).last_run_at;
  assert.deepEqual(JSON.parse(ok(['sql', 'SELECT count(*) AS n FROM acme.sales.big_orders', '--json'], asReader)).n > 0, true);
  assert.notEqual(json(['view', 'show', 'acme.sales.big_orders'], asReader).last_run_at, before);
  fails(['view', 'create', 'acme.sales.mine', '--sql', 'SELECT 1'], 'permission_denied', 5, asReader);
  fails(['view', 'drop', 'acme.sales.big_orders'], 'permission_denied', 5, asReader);
  // Another workspace's token sees no view of acme.
  ok(['workspace', 'create', 'other'], { target: serve.url });
  const other = { target: serve.url, env: token('other', 'owner') };
  fails(['view', 'show', 'acme.sales.big_orders'], 'permission_denied', 5, other);
  fails(['view', 'list', 'acme.sales'], 'permission_denied', 5, other);
  fails(['sql', 'SELECT * FROM acme.sales.by_region'], 'permission_denied', 5, other);
  // The audit log has the view changes, by the caller.
  const audit = ok(['audit', '--workspace', 'acme', '--json'], { target: serve.url });
  for (const action of ['view.create', 'view.replace']) assert.ok(audit.includes(`"${action}"`), action);
  cleanup(serve.url);
  assert.ok(ok(['audit', '--workspace', 'acme', '--json'], { target: serve.url }).includes('"view.drop"'));
});
