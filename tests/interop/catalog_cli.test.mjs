// `tarn workspace` and `tarn collection` as a script sees them: exit codes (0 ok, 2 usage or a
// bad name, 3 refused or not found), typed JSON errors on stderr, and the --json shapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { scratch } from './duckdb_compare.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('catalog_cli');

function run(args, env = {}) {
  const r = spawnSync(bin, args, {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', TARN_CATALOG: '', ...env },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function jsonError(r) {
  return JSON.parse(r.err.trim().split('\n').pop()).error;
}

test('workspace create, duplicate, exists-ok, list and show', () => {
  const cat = path.join(dir, 'ws');
  const c = ['--catalog', cat];
  assert.equal(run(['workspace', 'create', 'ws', ...c]).code, 0);
  assert.ok(fs.existsSync(path.join(cat, 'catalog.db')));
  assert.ok(fs.statSync(path.join(cat, 'warehouse')).isDirectory());

  const dup = run(['workspace', 'create', 'ws', ...c, '--json']);
  assert.equal(dup.code, 3);
  assert.equal(jsonError(dup).code, 'already_exists');
  assert.equal(run(['workspace', 'create', 'ws', '--exists-ok', ...c]).code, 0);

  const bad = run(['workspace', 'create', '9ws', ...c, '--json']);
  assert.equal(bad.code, 2);
  assert.equal(jsonError(bad).code, 'invalid_argument');
  assert.match(jsonError(bad).message, /workspace name/);

  const list = JSON.parse(run(['workspace', 'list', ...c, '--json']).out);
  assert.equal(list.length, 1);
  assert.equal(list[0].name, 'ws');
  assert.equal(list[0].deletion_protection, true);
  assert.equal(list[0].egress_protection, true);
  assert.equal(list[0].deletion_protection_value, null);
  assert.equal(list[0].collections, 0);
  assert.match(list[0].created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

  const missing = run(['workspace', 'show', 'nope', ...c, '--json']);
  assert.equal(missing.code, 3);
  assert.deepEqual(jsonError(missing), {
    code: 'workspace_not_found',
    message: "workspace 'nope' does not exist",
    workspace: 'nope',
  });
  assert.equal(run(['workspace', 'show', 'nope', ...c]).code, 3);
  assert.equal(run(['workspace', 'list', ...c]).out.split('\n')[0].split(/\s+/)[0], 'name');
});

test('workspace set: protection is tri-state and fails closed', () => {
  const c = ['--catalog', path.join(dir, 'prot')];
  assert.equal(run(['workspace', 'create', 'ws', ...c]).code, 0);
  const show = () => JSON.parse(run(['workspace', 'show', 'ws', ...c, '--json']).out);
  for (const [value, on] of [['FALSE', false], ['no', true], ['garbage', true], ['false', false], ['true', true]]) {
    assert.equal(run(['workspace', 'set', 'ws', `deletion_protection=${value}`, `egress_protection=${value}`, ...c]).code, 0);
    const w = show();
    assert.equal(w.deletion_protection, on, value);
    assert.equal(w.egress_protection, on, value);
    assert.equal(w.deletion_protection_value, value);
  }
  assert.equal(run(['workspace', 'set', 'ws', 'owner=me', 'tier=a=b', ...c]).code, 0);
  assert.deepEqual(show().properties, { owner: 'me', tier: 'a=b' });
  assert.equal(run(['workspace', 'set', 'ws', 'novalue', ...c]).code, 2);
  assert.equal(run(['workspace', 'set', 'nope', 'a=b', ...c]).code, 3);
});

test('collection create, list, show and drop', () => {
  const c = ['--catalog', path.join(dir, 'coll')];
  assert.equal(run(['workspace', 'create', 'ws', ...c]).code, 0);
  assert.equal(run(['collection', 'create', 'ws.sales', '--description', 'the sales', ...c]).code, 0);
  assert.equal(run(['collection', 'create', 'ws.audit', ...c]).code, 0);
  assert.equal(run(['collection', 'create', 'ws.sales', ...c]).code, 3);
  assert.equal(run(['collection', 'create', 'ws.sales', '--exists-ok', ...c]).code, 0);
  assert.equal(run(['collection', 'create', 'ws', ...c]).code, 2);
  assert.equal(run(['collection', 'create', 'ws.9x', ...c]).code, 2);
  const noWs = run(['collection', 'create', 'nope.c', ...c, '--json']);
  assert.equal(noWs.code, 3);
  assert.equal(jsonError(noWs).code, 'workspace_not_found');

  const list = JSON.parse(run(['collection', 'list', 'ws', ...c, '--json']).out);
  assert.deepEqual(list.map((x) => x.name), ['audit', 'sales']);
  const show = JSON.parse(run(['collection', 'show', 'ws.sales', ...c, '--json']).out);
  assert.equal(show.workspace, 'ws');
  assert.equal(show.name, 'sales');
  assert.equal(show.description, 'the sales');
  assert.deepEqual(show.properties, {});
  assert.equal(show.datasets, 0);
  assert.match(show.created_at, /Z$/);

  const gone = run(['collection', 'show', 'ws.nope', ...c, '--json']);
  assert.equal(gone.code, 3);
  assert.equal(jsonError(gone).code, 'collection_not_found');

  assert.equal(run(['collection', 'drop', 'ws.audit', ...c]).code, 0);
  assert.equal(run(['collection', 'drop', 'ws.audit', ...c]).code, 3);
  assert.deepEqual(JSON.parse(run(['collection', 'list', 'ws', ...c, '--json']).out).map((x) => x.name), ['sales']);
});

test('workspace drop refusals, unset, collection set/unset', () => {
  const c = ['--catalog', path.join(dir, 'drop')];
  assert.equal(run(['workspace', 'create', 'ws', ...c]).code, 0);
  assert.equal(run(['collection', 'create', 'ws.c', ...c]).code, 0);
  const prot = run(['workspace', 'drop', 'ws', ...c, '--json']);
  assert.equal(prot.code, 3);
  assert.equal(jsonError(prot).code, 'deletion_protected');
  assert.equal(run(['workspace', 'set', 'ws', 'deletion_protection=false', 'k=v', ...c]).code, 0);
  const full = run(['workspace', 'drop', 'ws', ...c, '--json']);
  assert.equal(full.code, 3);
  assert.equal(jsonError(full).code, 'workspace_not_empty');

  assert.equal(run(['collection', 'set', 'ws.c', 'team=fin', 'description=d', ...c]).code, 0);
  let show = JSON.parse(run(['collection', 'show', 'ws.c', ...c, '--json']).out);
  assert.deepEqual([show.description, show.properties], ['d', { team: 'fin' }]);
  assert.equal(run(['collection', 'unset', 'ws.c', 'team', ...c]).code, 0);
  show = JSON.parse(run(['collection', 'show', 'ws.c', ...c, '--json']).out);
  assert.deepEqual(show.properties, {});

  assert.equal(run(['workspace', 'unset', 'ws', 'deletion_protection', 'k', ...c]).code, 0);
  const w = JSON.parse(run(['workspace', 'show', 'ws', ...c, '--json']).out);
  assert.deepEqual([w.deletion_protection, w.properties], [true, {}]);

  assert.equal(run(['collection', 'drop', 'ws.c', ...c]).code, 0);
  assert.equal(run(['workspace', 'set', 'ws', 'deletion_protection=False', ...c]).code, 0);
  assert.equal(run(['workspace', 'drop', 'ws', ...c]).code, 0);
  assert.equal(run(['workspace', 'show', 'ws', ...c]).code, 3);
  assert.equal(run(['workspace', 'drop', 'ws', ...c]).code, 3);
});

test('TARN_CATALOG selects the catalog when --catalog is absent', () => {
  const cat = path.join(dir, 'env');
  assert.equal(run(['workspace', 'create', 'envws'], { TARN_CATALOG: cat }).code, 0);
  const list = JSON.parse(run(['workspace', 'list', '--json'], { TARN_CATALOG: cat }).out);
  assert.deepEqual(list.map((w) => w.name), ['envws']);
  // --catalog wins over the environment.
  const other = path.join(dir, 'env2');
  const list2 = JSON.parse(run(['workspace', 'list', '--json', '--catalog', other], { TARN_CATALOG: cat }).out);
  assert.deepEqual(list2, []);
});

test('usage errors exit 2', () => {
  assert.equal(run(['workspace']).code, 2);
  assert.equal(run(['collection', 'create']).code, 2);
});
