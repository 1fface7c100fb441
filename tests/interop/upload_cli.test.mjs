// `tarn push`, `plan`, `show`, `abandon` and `convert`, embedded and against a `tarn serve` this
// test starts: every exit code from a real situation (0 pushed, 2 usage, 3 refused, 4 stale,
// 5 denied, 6 server down, 130 SIGINT during a large push), the conversation at a terminal
// through a real pseudo-terminal (python3's pty module), and DuckDB reading the committed
// Parquet files and the `tarn convert` output back value for value.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { query, quote, scratch } from './duckdb_compare.mjs';
import { eventually, runTarn, startServe, tarnEnv } from './tarn_process.mjs';

const bin = process.env.TARN_BINARY || path.resolve('../../build/tarn');
const dir = scratch('upload_cli');
const embeddedDir = path.join(dir, 'embedded');
const servedDir = path.join(dir, 'served');
const OWNER_ID = 'tarn_uploadclitestowner0';
const OWNER_SECRET = 'upload-cli-test-owner-secret-0123456789';

// ---- inputs ----
const findingsRows = [
  ['CVE-2026-00001', '2026-08-02T04:22:07Z', '10.1.7.13', '1', '0.5'],
  ['CVE-2026-00002', '2026-08-03T10:00:00Z', '192.168.0.1', '12', '1.25'],
  ['CVE-2026-00003', '2026-08-04T23:59:59Z', '8.8.8.8', '', '2.125'],
  ['CVE-2026-00004', '2026-08-05T00:00:00Z', '172.16.5.4', '7', ''],
];
function writeCsv(name, header, rows) {
  const p = path.join(dir, name);
  fs.writeFileSync(p, [header.join(','), ...rows.map((r) => r.join(','))].join('\n') + '\n');
  return p;
}
const HEADER = ['cve_id', 'published', 'source_ip', 'hosts', 'score'];
const findings = writeCsv('findings.csv', HEADER, findingsRows);
const moreRows = [
  ['CVE-2026-00005', '2026-08-06T01:02:03Z', '1.2.3.4', '3', '9.75'],
  ['CVE-2026-00006', '2026-08-07T04:05:06Z', '5.6.7.8', '4', '0.001'],
];
const more = writeCsv('more.csv', HEADER, moreRows);
const bad = writeCsv('bad.csv', HEADER, [['CVE-2026-00009', '2026-08-08T00:00:00Z', '1.1.1.1', 'many', '1']]);
const extra = writeCsv('extra.csv', [...HEADER, 'extra'], [['CVE-2026-00010', '2026-08-09T00:00:00Z', '2.2.2.2', '5', '1', 'x']]);
const DECLARE = ['--declare', 'cve_id:VARCHAR', '--declare', 'published:TIMESTAMPTZ',
  '--declare', 'source_ip:IPV4', '--declare', 'hosts:INT64', '--declare', 'score:DECIMAL(10,3)'];

// A CSV of a few tens of MB: writing it takes long enough to interrupt it or move the dataset.
const big = path.join(dir, 'big.csv');
{
  const lines = ['id,ts,ip,n,note'];
  for (let i = 0; i < 600_000; i++) {
    lines.push(`${i},2026-01-01T00:00:${String(i % 60).padStart(2, '0')}Z,10.0.${(i >> 8) & 255}.${i & 255},${i % 1000},row number ${i} of the big file`);
  }
  fs.writeFileSync(big, lines.join('\n') + '\n');
}
// A tiny file with the big file's columns (creates the dataset the stale test moves).
const tinyBig = path.join(dir, 'tiny-big.csv');
fs.writeFileSync(tinyBig, 'id,ts,ip,n,note\n1,2026-01-01T00:00:00Z,10.0.0.1,1,one\n');
const BIG_DECLARE = ['--declare', 'id:INT64', '--declare', 'ts:TIMESTAMPTZ', '--declare', 'ip:IPV4',
  '--declare', 'n:INT64', '--declare', 'note:VARCHAR'];

// ---- running tarn ----
let url = '';

const env = (extra = {}) => tarnEnv(OWNER_ID, OWNER_SECRET, extra);
// Runs tarn against a catalog (a directory or a URL) off a terminal.
const run = (target, args, extraEnv = {}) => runTarn(bin, target, args, env(extraEnv));
function jsonError(r) {
  const lines = r.err.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]).error;
}
function ok(target, args, extraEnv) {
  const r = run(target, [...args, '--json'], extraEnv);
  assert.equal(r.code, 0, `tarn ${args.join(' ')}: exit ${r.code}\n${r.err}`);
  return JSON.parse(r.out);
}
function fails(target, args, code, errorCode, extraEnv) {
  const r = run(target, [...args, '--json'], extraEnv);
  assert.equal(r.code, code, `tarn ${args.join(' ')}: expected exit ${code}, got ${r.code}\n${r.out}\n${r.err}`);
  const e = jsonError(r);
  if (errorCode) assert.equal(e.code, errorCode, r.err);
  return e;
}

let serve = null;
const serverLog = () => (serve ? serve.log() : '');
async function startServer() {
  serve = await startServe({ bin, catalog: servedDir, logPath: path.join(dir, 'serve.log'), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET });
  url = serve.url;
}
const stopServer = async () => (serve ? serve.stop() : null);
after(stopServer);

// Starts a push in the background and resolves once its stderr says it is writing, with a
// promise of its end.
function startPush(target, args) {
  const child = spawn(bin, ['push', ...args, '--catalog', target], {
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => { out += d; });
  const done = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, out, err })));
  const writing = new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      err += d;
      if (/writing big\.csv/.test(err)) resolve();
    });
    child.once('exit', () => reject(new Error(`push ended before writing: ${err}`)));
  });
  return { child, writing, done };
}

// The warehouse of a target (where staged uploads live).
const warehouseOf = (target) => path.join(target === url ? servedDir : embeddedDir, 'warehouse');
function stagedFiles(target, id) {
  const d = path.join(warehouseOf(target), 'uploads', id);
  if (!fs.existsSync(d)) return [];
  return fs.readdirSync(d, { recursive: true }).filter((f) => fs.statSync(path.join(d, f)).isFile());
}


// DuckDB's rows of the dataset's live Parquet files (the warehouse read directly).
async function datasetRows(target, name, columns) {
  const files = ok(target, ['files', name]);
  assert.ok(files.length > 0);
  const list = files.map((f) => quote(path.join(warehouseOf(target), f.path))).join(', ');
  return query(`SELECT ${columns} FROM read_parquet([${list}]) ORDER BY cve_id`);
}

// What the inputs hold, as DuckDB's own CSV reader types them.
async function csvRows(files, columns) {
  const list = files.map((f) => quote(f)).join(', ');
  return query(`SELECT ${columns} FROM read_csv([${list}], header = true, all_varchar = true) ORDER BY cve_id`);
}

// ---- the flows, on both catalogs ----
const targets = () => [['embedded', embeddedDir], ['remote', url]];

test('tarn serve starts', async () => {
  await startServer();
});

for (const [kind] of [['embedded'], ['remote']]) {
  const target = () => targets().find(([k]) => k === kind)[1];
  const D = 'acme.security.findings';

  test(`${kind}: usage errors exit 2 before anything is negotiated`, () => {
    const t = target();
    ok(t, ['workspace', 'create', 'acme']);
    ok(t, ['collection', 'create', 'acme.security']);
    fails(t, ['push', findings, '--to', D, '--infer', '--declare', 'a:INT64'], 2);
    fails(t, ['push', findings, '--to', D, '--infer', '--use-dataset'], 2);
    fails(t, ['push', findings, '--to', D, '--declare', 'nocolon'], 2, 'bad_declaration');
    fails(t, ['push', findings, '--to', D, '--append', '--infer'], 2);
    fails(t, ['push', findings, '--to', D, '--append', '--overwrite'], 2);
    fails(t, ['push', findings, '--to', D, '--type', 'hosts'], 2);
    fails(t, ['push', findings, '--to', 'not-a-dataset'], 2);
    assert.equal(run(t, ['push', findings]).code, 2);  // --to is required
    assert.equal(run(t, ['convert', findings]).code, 2);  // no OUTPUT
    fails(t, ['convert', findings, path.join(dir, 'x.parquet'), '--compression', 'lzma'], 2);
  });

  test(`${kind}: an inferred push off a terminal without --yes is refused (3) and abandoned`, () => {
    const t = target();
    const e = fails(t, ['push', findings, '--to', D], 3, 'contract_not_accepted');
    assert.match(e.contract_id, /^ct_/);
    assert.match(e.message, /--yes/);
    const c = ok(t, ['show', e.contract_id]);
    assert.equal(c.state, 'abandoned');
    assert.equal(c.schema_source, 'inferred');
    fails(t, ['dataset', 'show', D], 3);
    // Text form: the plan is printed before the refusal.
    const r = run(t, ['push', findings, '--to', D]);
    assert.equal(r.code, 3);
    assert.match(r.out, /new, types read from your data/);
    assert.match(r.out, /published\s+2026-08-02T04:22:07Z\s+TIMESTAMPTZ(\[us\])?\s*$/m);
    assert.match(r.err, /contract_not_accepted/);
  });

  test(`${kind}: plan negotiates, prints and abandons; --json is the contract`, () => {
    const t = target();
    const c = ok(t, ['plan', findings, '--to', D, '--type', 'hosts=INT32', '--ignore', 'score']);
    assert.equal(c.target, D);
    assert.equal(c.requested_source, 'auto');
    assert.equal(c.schema_source, 'inferred');
    assert.equal(c.mode, 'create');
    const byCol = Object.fromEntries(c.plan.map((e) => [e.column, e]));
    assert.deepEqual(Object.keys(byCol), HEADER);
    assert.equal(byCol.cve_id.to, 'VARCHAR');
    assert.match(byCol.published.to, /^TIMESTAMPTZ/);
    assert.equal(byCol.source_ip.to, 'IPV4');
    assert.equal(byCol.hosts.from, 'INT64');
    assert.equal(byCol.hosts.to, 'INT32');
    assert.equal(byCol.hosts.retyped, true);
    assert.equal(byCol.score.action, 'ignored');
    assert.equal(byCol.cve_id.sample, 'CVE-2026-00001');
    assert.equal(ok(t, ['show', c.id]).state, 'abandoned');
    assert.deepEqual(stagedFiles(t, c.id), []);
    // Abandoning again is fine; show prints the plan as text too.
    assert.deepEqual(ok(t, ['abandon', c.id]), { id: c.id, state: 'abandoned' });
    const shown = run(t, ['show', c.id]);
    assert.equal(shown.code, 0, shown.err);
    assert.match(shown.out, /state\s+abandoned/);
    assert.match(shown.out, /hosts\s+1\s+INT64\s+INT32\s+cast/);
    const text = run(t, ['plan', findings, '--to', D]);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /column\s+sample\s+type/);
    assert.match(text.out, /source_ip\s+10\.1\.7\.13\s+IPV4/);
    assert.match(text.out, /abandoned, nothing was written/);
    fails(t, ['dataset', 'show', D], 3);
  });

  test(`${kind}: push with --declare creates the dataset; a second push appends`, async () => {
    const t = target();
    const first = ok(t, ['push', findings, '--to', D, ...DECLARE, '-m', 'first load']);
    assert.equal(first.created_dataset, true);
    assert.equal(first.rows_written, 4);
    assert.equal(first.target, D);
    assert.match(first.contract_id, /^ct_/);
    const c = ok(t, ['show', first.contract_id]);
    assert.equal(c.state, 'committed');
    assert.equal(c.committed.snapshot_id, first.snapshot_id);
    const ds = ok(t, ['dataset', 'show', D]);
    assert.deepEqual(ds.schema.map((f) => [f.name, f.type.replace('[us]', '')]),
      [['cve_id', 'VARCHAR'], ['published', 'TIMESTAMPTZ'], ['source_ip', 'IPV4'], ['hosts', 'INT64'], ['score', 'DECIMAL(10,3)']]);

    // Appending asks nothing and lists the conversions (score is FLOAT64 in the data).
    const second = run(t, ['push', more, '--to', D, '-m', 'more']);
    assert.equal(second.code, 0, second.err);
    assert.match(second.out, /exists; rows are appended/);
    assert.match(second.out, /cast\s+score\s+\S+ -> DECIMAL\(10,3\)/);
    assert.match(second.out, /committed acme\.security\.findings: snapshot \d+, 2 rows/);
    const snaps = ok(t, ['snapshots', D]);
    assert.equal(snaps.length, 2);
    assert.equal(snaps[0].receipt.produced_by, 'upload:cli');
    assert.equal(snaps[0].author, 'tester');
    assert.equal(snaps[1].message, 'more');
    const atFirst = run(t, ['scan', D, '--at', String(first.snapshot_id), '--json']);
    assert.equal(atFirst.out.trim().split('\n').length, 4);

    // DuckDB reads the committed files: the values of both inputs.
    const cols = `cve_id, strftime(published AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS published,
      hosts, score::VARCHAR AS score`;
    const got = await datasetRows(t, D, cols);
    const want = await csvRows([findings, more], `cve_id, published,
      TRY_CAST(NULLIF(hosts, '') AS BIGINT) AS hosts,
      CAST(CAST(NULLIF(score, '') AS DECIMAL(10,3)) AS VARCHAR) AS score`);
    assert.deepEqual(got, want);
    // IPv4 is a UINT32 in Parquet: 10.1.7.13 = 167839501.
    const ips = await query(`SELECT source_ip FROM read_parquet([${ok(t, ['files', D]).map((f) => quote(path.join(warehouseOf(t), f.path))).join(',')}]) ORDER BY source_ip`);
    assert.ok(ips.some((r) => Number(r.source_ip) === 167839501));
  });

  test(`${kind}: refusals exit 3 and commit nothing`, () => {
    const t = target();
    const before = ok(t, ['snapshots', D]).length;
    const e = fails(t, ['push', bad, '--to', D], 3, 'value_not_castable');
    assert.equal(e.column, 'hosts');
    assert.equal(e.value, 'many');
    assert.equal(ok(t, ['show', e.contract_id]).state, 'abandoned');
    const u = fails(t, ['push', extra, '--to', D], 3, 'column_undeclared');
    assert.equal(u.column, 'extra');
    assert.equal(ok(t, ['snapshots', D]).length, before);
    // --ignore leaves the column out and the push goes through.
    const r = ok(t, ['push', extra, '--to', D, '--ignore', 'extra']);
    assert.equal(r.rows_written, 1);
    fails(t, ['push', findings, '--to', D, '--infer', '--yes'], 3, 'dataset_exists');
    fails(t, ['push', findings, '--to', 'acme.security.nope', '--use-dataset'], 3);
    fails(t, ['push', path.join(dir, 'missing.csv'), '--to', D], 3);
    fails(t, ['show', 'ct_20260101000000_000000000000'], 3, 'contract_not_found');
    fails(t, ['abandon', 'ct_20260101000000_000000000000'], 3, 'contract_not_found');
    // A committed contract cannot be abandoned.
    fails(t, ['abandon', r.contract_id], 3, 'already_committed');
  });

  test(`${kind}: --yes accepts inferred types; idempotency keys; --overwrite`, () => {
    const t = target();
    const y = ok(t, ['push', findings, '--to', 'acme.security.inferred', '--yes', '--type', 'hosts=INT32']);
    assert.equal(y.created_dataset, true);
    const ds = ok(t, ['dataset', 'show', 'acme.security.inferred']);
    const types = Object.fromEntries(ds.schema.map((f) => [f.name, f.type]));
    assert.equal(types.source_ip, 'IPV4');
    assert.match(types.published, /^TIMESTAMPTZ/);
    assert.equal(types.hosts, 'INT32');

    const k1 = ok(t, ['push', more, '--to', 'acme.security.inferred', '--idempotency-key', 'nightly-1']);
    // Running push again with the key (a pipeline retrying after a lost answer) makes a new
    // contract whose commit returns the first snapshot: nothing is written twice.
    const k2 = ok(t, ['push', more, '--to', 'acme.security.inferred', '--idempotency-key', 'nightly-1']);
    assert.equal(k2.snapshot_id, k1.snapshot_id);
    assert.equal(k2.idempotent_replay, true);
    assert.equal(k2.rows_written, k1.rows_written);
    assert.equal(ok(t, ['snapshots', 'acme.security.inferred']).length, 2);

    const o = ok(t, ['push', more, '--to', 'acme.security.inferred', '--overwrite', '-m', 'replace']);
    assert.equal(o.rows_written, 2);
    const rows = run(t, ['scan', 'acme.security.inferred', '--json']).out.trim().split('\n');
    assert.equal(rows.length, 2);
  });

  test(`${kind}: the dataset moving during a write is contract_stale (exit 4)`, async () => {
    const t = target();
    const S = 'acme.security.moving';
    ok(t, ['push', tinyBig, '--to', S, ...BIG_DECLARE]);
    const p = startPush(t, [big, '--to', S]);
    await p.writing;
    const alter = run(t, ['dataset', 'alter', S, 'add extra VARCHAR']);
    assert.equal(alter.code, 0, alter.err);
    const r = await p.done;
    assert.equal(r.code, 4, `${r.out}\n${r.err}`);
    assert.match(r.err, /contract_stale/);
    assert.match(r.err, /extra/);  // the diff names the new column
    assert.equal(ok(t, ['snapshots', S]).length, 1);
  });

  test(`${kind}: SIGINT during a large push abandons the contract and exits 130`, async () => {
    const t = target();
    const S = 'acme.security.interrupted';
    const p = startPush(t, [big, '--to', S, ...BIG_DECLARE]);
    await p.writing;
    p.child.kill('SIGINT');
    const r = await p.done;
    assert.equal(r.code, 130, `${r.out}\n${r.err}`);
    const id = (r.err.match(/ct_\d{14}_[0-9a-f]+/) || [])[0];
    assert.ok(id, r.err);
    assert.match(r.err, /abandoned/);
    assert.equal(ok(t, ['show', id]).state, 'abandoned');
    fails(t, ['dataset', 'show', S], 3);
    // A write the server was still taking in fails and deletes what it staged.
    await eventually(() => assert.deepEqual(stagedFiles(t, id), []));
  });
}

test('remote: a reader token is refused (exit 5); a server that is down is exit 6', async () => {
  const tok = ok(url, ['token', 'create', '--workspace', 'acme', '--role', 'reader']);
  const asReader = { TARN_CLIENT_ID: tok.client_id, TARN_CLIENT_SECRET: tok.client_secret };
  const e = fails(url, ['push', more, '--to', 'acme.security.findings'], 5, undefined, asReader);
  assert.match(e.code, /not_authorized|permission_denied/);
  const p = fails(url, ['push', more, '--to', 'acme.security.readers', ...DECLARE], 5, undefined, asReader);
  assert.ok(p);
  // The reader may still show a contract.
  const plan = ok(url, ['plan', more, '--to', 'acme.security.findings']);
  assert.equal(ok(url, ['show', plan.id], asReader).state, 'abandoned');

  const code = await stopServer();
  assert.equal(code, 0, serverLog());
  fails(url, ['push', more, '--to', 'acme.security.findings'], 6);
  fails(url, ['plan', more, '--to', 'acme.security.findings'], 6);
  fails(url, ['show', plan.id], 6);
});

// ---- the terminal ----
const ptyDriver = path.join(dir, 'pty_driver.py');
fs.writeFileSync(ptyDriver, String.raw`
import json, os, pty, re, select, signal, struct, sys, time, fcntl, termios
spec = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    e = dict(os.environ)
    e.update(spec.get('env', {}))
    for k in spec.get('unset', []):
        e.pop(k, None)
    os.execve(spec['argv'][0], spec['argv'], e)
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', 40, 160, 0, 0))
out = b''
pos = 0
ansi = re.compile(r'\x1b\[[0-9;]*[A-Za-z]')
def plain():
    return ansi.sub('', out.decode('utf-8', 'replace'))
def pump(timeout):
    global out
    r, _, _ = select.select([fd], [], [], timeout)
    if not r:
        return True
    try:
        data = os.read(fd, 65536)
    except OSError:
        return False
    if not data:
        return False
    out += data
    return True
failed = None
for step in spec['steps']:
    deadline = time.time() + step.get('timeout', 60)
    rx = re.compile(step['expect'])
    while True:
        m = rx.search(plain(), pos)
        if m:
            pos = m.end()
            break
        if time.time() > deadline or not pump(0.2):
            if not rx.search(plain(), pos):
                failed = step['expect']
            break
    if failed:
        break
    if 'send' in step:
        os.write(fd, step['send'].encode())
    if step.get('sigint'):
        os.kill(pid, signal.SIGINT)
# Drain until the child ends (at most 120 s; at once when a step failed), then reap it.
deadline = time.time() + (0 if failed else 120)
code = None
while code is None:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        code = os.waitstatus_to_exitcode(status)
        break
    if time.time() > deadline:
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        break
    pump(0.2)
while pump(0.1) and select.select([fd], [], [], 0)[0]:
    pass
print(json.dumps({'code': code, 'out': out.decode('utf-8', 'replace'), 'failed': failed}))
`);

function tty(args, steps, extraEnv = {}, unset = ['NO_COLOR']) {
  const spec = {
    argv: [bin, ...args, '--catalog', embeddedDir],
    env: { TARN_CATALOG: '', TARN_AUTHOR: 'person', COLORTERM: 'truecolor', TERM: 'xterm-256color', ...extraEnv },
    unset,
    steps,
  };
  const r = spawnSync('python3', [ptyDriver, JSON.stringify(spec)], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  const res = JSON.parse(r.stdout);
  assert.equal(res.failed, null, `waited for ${res.failed}; the terminal showed:\n${res.out}`);
  // The terminal's text without colours and with \r\n as \n.
  res.plain = res.out.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '').replace(/\r\n/g, '\n');
  return res;
}

test('terminal: the plan table, col=TYPE, -col, accept, commit', async () => {
  const T = 'acme.security.typed';
  const r = tty(['push', findings, '--to', T, '-m', 'by hand'], [
    { expect: 'accept \\[enter\\][^\\n]*\\n> ', send: 'hosts=INT32 -score\r' },
    { expect: 'was INT64[\\s\\S]*> ', send: 'source_ip=VARCHAR\r' },
    { expect: 'was IPV4[\\s\\S]*> ', send: '\r' },
    { expect: 'committed' },
  ]);
  assert.equal(r.code, 0, r.plain);
  // Colours: truecolor escapes at a terminal that says it takes them.
  assert.match(r.out, /\x1b\[[0-9;]*38;2;\d+;\d+;\d+m/);
  assert.match(r.plain, /acme\.security\.typed\s+new, types read from your data/);
  assert.match(r.plain, /column\s+sample\s+type/);
  assert.match(r.plain, /published\s+2026-08-02T04:22:07Z\s+TIMESTAMPTZ(\[us\])?\s*$/m);
  assert.match(r.plain, /source_ip\s+10\.1\.7\.13\s+IPV4/);
  assert.match(r.plain, /hosts\s+1\s+INT32\s+was INT64/);
  assert.match(r.plain, /score\s+0\.5\s+\S+\s+read and not written/);
  assert.match(r.plain, /committed acme\.security\.typed: snapshot \d+, 4 rows/);

  const ds = ok(embeddedDir, ['dataset', 'show', T]);
  const types = Object.fromEntries(ds.schema.map((f) => [f.name, f.type]));
  assert.deepEqual(Object.keys(types), ['cve_id', 'published', 'source_ip', 'hosts']);
  assert.equal(types.hosts, 'INT32');
  assert.equal(types.source_ip, 'VARCHAR');
  assert.match(types.published, /^TIMESTAMPTZ/);
  const snaps = ok(embeddedDir, ['snapshots', T]);
  assert.equal(snaps[0].author, 'person');
  assert.equal(snaps[0].message, 'by hand');
  // DuckDB: hosts is a 32-bit integer with the input's values.
  const files = ok(embeddedDir, ['files', T]).map((f) => quote(path.join(embeddedDir, 'warehouse', f.path)));
  const d = await query(`SELECT cve_id, hosts, typeof(hosts) AS t, source_ip FROM read_parquet([${files.join(',')}]) ORDER BY cve_id`);
  assert.deepEqual(d.map((x) => [x.cve_id, x.hosts, x.t, x.source_ip]),
    findingsRows.map((row) => [row[0], row[3] === '' ? null : Number(row[3]), 'INTEGER', row[2]]));
});

test('terminal: a bad answer is explained and asked again; q stops (exit 3)', () => {
  const T = 'acme.security.stopped';
  const r = tty(['push', findings, '--to', T], [
    { expect: '\\n> ', send: 'hosts\r' },
    { expect: 'column=TYPE to change[\\s\\S]*> ', send: 'hosts=NOT_A_TYPE\r' },
    { expect: '\\n> ', send: 'q\r' },
  ], { NO_COLOR: '1' }, []);
  assert.equal(r.code, 3, r.plain);
  assert.match(r.plain, /stopped; nothing was written/);
  assert.doesNotMatch(r.out, /\x1b\[[0-9;]*m/);  // NO_COLOR kept: no colour at all
  fails(embeddedDir, ['dataset', 'show', T], 3);
});

test('terminal: SIGINT at the prompt abandons (exit 130); appends ask nothing', () => {
  const T = 'acme.security.interrupted2';
  const r = tty(['push', findings, '--to', T], [{ expect: '\\n> ', sigint: true }]);
  assert.equal(r.code, 130, r.plain);
  const id = r.plain.match(/ct_\d{14}_[0-9a-f]+/)[0];
  assert.equal(ok(embeddedDir, ['show', id]).state, 'abandoned');

  // An append at a terminal asks nothing; --no-color turns colour off.
  const a = tty(['push', more, '--to', 'acme.security.findings', '--no-color'], [{ expect: 'committed' }]);
  assert.equal(a.code, 0, a.plain);
  assert.doesNotMatch(a.plain, /accept \[enter\]/);
  assert.doesNotMatch(a.out, /\x1b\[[0-9;]*m/);
});

test('terminal: a progress line with bytes, rate and ETA, redrawn in place and cleared', () => {
  const r = tty(['push', big, '--to', 'acme.security.progress', ...BIG_DECLARE], [{ expect: 'committed' }]);
  assert.equal(r.code, 0, r.plain);
  const size = (fs.statSync(big).size / 1e6).toFixed(1);
  // Redrawn with \r and erased to the end of the line each time.
  const draws = r.out.split('\r').filter((l) => l.includes(`/ ${size} MB`));
  assert.ok(draws.length >= 1, r.out.slice(0, 2000));
  assert.ok(draws.some((l) => /big\.csv  [\d.]+ [kKMG]?B \/ [\d.]+ MB  [\d.]+ [kKMG]?B\/s/.test(l)), draws.join('\n'));
  assert.match(r.out, /\r\x1b\[K/);  // cleared at the end
  // Off a terminal there is no progress line at all.
  const off = run(embeddedDir, ['push', tinyBig, '--to', 'acme.security.progress']);
  assert.equal(off.code, 0, off.err);
  assert.doesNotMatch(off.err, /\r|MB\/s/);
  assert.match(off.err, /writing tiny-big\.csv/);
});

// ---- tarn convert ----
test('convert: CSV to Parquet (local path and file:// URI) that DuckDB reads back', async () => {
  const out = path.join(dir, 'findings.parquet');
  const r = ok(embeddedDir, ['convert', findings, more, out, '--infer', '--type', 'hosts=INT32']);
  assert.equal(r.rows, 6);
  assert.equal(r.output, out);
  const cols = Object.fromEntries(r.columns.map((c) => [c.name, c.type]));
  assert.equal(cols.hosts, 'INT32');
  assert.equal(cols.source_ip, 'IPV4');
  const got = await query(`SELECT cve_id, hosts, typeof(hosts) AS t,
      strftime(published AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%SZ') AS published
    FROM read_parquet(${quote(out)}) ORDER BY cve_id`);
  const want = [...findingsRows, ...moreRows].map((row) =>
    ({ cve_id: row[0], hosts: row[3] === '' ? null : Number(row[3]), t: 'INTEGER', published: row[1] }));
  assert.deepEqual(got, want);

  // Without --infer text stays VARCHAR; the codec is the one asked for.
  const out2 = path.join(dir, 'findings-text.parquet');
  const r2 = ok(embeddedDir, ['convert', findings, `file://${out2}`, '--compression', 'snappy']);
  assert.equal(r2.compression, 'snappy');
  const meta = await query(`SELECT DISTINCT compression FROM parquet_metadata(${quote(out2)})`);
  assert.deepEqual(meta.map((m) => m.compression), ['SNAPPY']);
  const text = await query(`SELECT cve_id, hosts, score FROM read_parquet(${quote(out2)}) ORDER BY cve_id`);
  const csvText = await csvRows([findings], 'cve_id, hosts, score');
  assert.deepEqual(text.map((x) => [x.cve_id, x.hosts ?? '', x.score ?? '']), csvText.map((x) => [x.cve_id, x.hosts ?? '', x.score ?? '']));

  // A value that does not convert: exit 3 and no output file.
  const out3 = path.join(dir, 'bad.parquet');
  fails(embeddedDir, ['convert', bad, out3, '--type', 'hosts=INT64'], 3, 'value_not_castable');
  assert.equal(fs.existsSync(out3), false);
});

test('convert: field ids 1..N by position, or a declared schema\'s', async () => {
  const ids = (file) => ok(embeddedDir, ['parquet', 'schema', file]).columns
    .map((c) => `${c.name}:${c.field_id}`).join(', ');
  // By position, as `tarn dataset create --schema` numbers columns; DuckDB sees the same ids.
  const out = path.join(dir, 'findings-ids.parquet');
  const r = ok(embeddedDir, ['convert', findings, out, '--infer']);
  assert.deepEqual(r.columns.map((c) => c.field_id), [1, 2, 3, 4, 5]);
  assert.equal(ids(out), 'cve_id:1, published:2, source_ip:3, hosts:4, score:5');
  const duck = await query(`SELECT name, field_id FROM parquet_schema(${quote(out)})
    WHERE field_id IS NOT NULL ORDER BY field_id`);
  assert.deepEqual(duck.map((c) => `${c.name}:${c.field_id}`).join(', '), ids(out));

  // --schema: declared types and nullability, ids 1..N; a column it lacks is refused.
  const out2 = path.join(dir, 'findings-declared.parquet');
  const r2 = ok(embeddedDir, ['convert', findings, out2, '--schema',
    'cve_id VARCHAR NOT NULL, score DOUBLE, hosts INT32, source_ip IPV4, published TIMESTAMPTZ']);
  assert.deepEqual(r2.columns.map((c) => `${c.name} ${c.type}`),
    ['cve_id VARCHAR', 'score FLOAT64', 'hosts INT32', 'source_ip IPV4', 'published TIMESTAMPTZ[us]']);
  assert.equal(ids(out2), 'cve_id:1, score:2, hosts:3, source_ip:4, published:5');
  fails(embeddedDir, ['convert', findings, path.join(dir, 'x.parquet'), '--schema', 'cve_id VARCHAR'],
    3, 'column_undeclared');

  // --schema-file with `tarn dataset show --json`: the dataset's own ids, so the file can be
  // registered with add-files and read by id. The dataset dropped `hosts` and added `hosts`
  // again, so its ids are not positional.
  const D = 'acme.security.convertids';
  ok(embeddedDir, ['dataset', 'create', D, '--schema',
    'cve_id VARCHAR NOT NULL, published TIMESTAMPTZ, source_ip IPV4, hosts INT64, score DOUBLE']);
  ok(embeddedDir, ['dataset', 'alter', D, 'drop hosts']);
  ok(embeddedDir, ['dataset', 'alter', D, 'add hosts INT64']);
  const show = run(embeddedDir, ['dataset', 'show', D, '--json']);
  assert.equal(show.code, 0, show.err);
  const schemaFile = path.join(dir, 'convertids.json');
  fs.writeFileSync(schemaFile, show.out);
  const want = JSON.parse(show.out).schema.map((f) => `${f.name}:${f.id}`).join(', ');
  assert.equal(want, 'cve_id:1, published:2, source_ip:3, score:5, hosts:6');
  const out3 = path.join(dir, 'findings-dataset.parquet');
  ok(embeddedDir, ['convert', findings, more, out3, '--schema-file', schemaFile]);
  assert.equal(ids(out3), want);
  // Exclusive with --type and --infer, and with each other: usage (exit 2).
  fails(embeddedDir, ['convert', findings, path.join(dir, 'y.parquet'), '--schema-file', schemaFile,
    '--infer'], 2, 'usage');
  fails(embeddedDir, ['convert', findings, path.join(dir, 'y.parquet'), '--schema', 'a INT64',
    '--schema-file', schemaFile], 2, 'usage');
  fails(embeddedDir, ['convert', findings, path.join(dir, 'y.parquet'), '--schema', 'a NOPE'], 2, 'usage');
});
