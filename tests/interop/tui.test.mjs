// `tarn tui` (and `tarn` alone at a terminal), driven end to end through a private tmux server:
// keys go in with send-keys, the screen comes back with capture-pane. Signing in against a
// `tarn serve` this test starts (a wrong token first), the file browser across directories,
// retyping and ignoring columns in the plan, accepting and uploading, then the CLI and DuckDB
// reading what was committed; quitting with a contract open, and during a large write, leaving
// nothing behind; resizes down to "too small" and back; the palette's escapes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { query, quote, scratch } from './duckdb_compare.mjs';
import { eventually, runTarn, startServe, tarnEnv } from './tarn_process.mjs';

const bin = path.resolve(process.env.TARN_BINARY || '../../build/tarn');
const dir = scratch('tui');
const servedDir = path.join(dir, 'served');
const embeddedDir = path.join(dir, 'embedded');
const OWNER_ID = 'tarn_tuitestowner0000000';
const OWNER_SECRET = 'tui-test-owner-secret-0123456789abcdef';

// ---- inputs ----
// Directory A (the browser's start): a CSV, a checksum file tarn cannot read, a subdirectory.
const dirA = path.join(dir, 'exports');
const dirSub = path.join(dirA, 'sub');
const dirB = path.join(dir, 'elsewhere');
fs.mkdirSync(dirSub, { recursive: true });
fs.mkdirSync(dirB, { recursive: true });
const HEADER = 'id,amount,at,note';
const alphaRows = [
  '1,12.50,2026-01-02T03:04:05Z,first',
  '2,7.25,2026-01-03T00:00:00Z,second',
  '3,100.00,2026-01-04T12:30:00Z,third',
];
const betaRows = ['4,0.99,2026-02-01T00:00:00Z,fourth', '5,1234.56,2026-02-02T08:00:00Z,fifth'];
const alpha = path.join(dirA, 'alpha.csv');
const beta = path.join(dirB, 'beta.csv');
fs.writeFileSync(alpha, [HEADER, ...alphaRows].join('\n') + '\n');
fs.writeFileSync(beta, [HEADER, ...betaRows].join('\n') + '\n');
fs.writeFileSync(path.join(dirA, 'SHA256SUMS'), 'f'.repeat(63) + '\n');  // 64 B
fs.writeFileSync(path.join(dirSub, 'gamma.txt'), 'not data\n');

// A CSV of 320 MB with many short values (conversion, not reading, is the slow part): its write
// takes seconds even in a Release build, so the quit lands in the middle of it. It is a 1 MB
// block written 320 times; the test stops the write long before the end.
const big = path.join(dir, 'big.csv');
const BIG_BLOCKS = 320;
{
  const lines = [];
  let size = 0;
  for (let i = 0; size < 1e6; i++) {
    const l = `${i},${i % 7},${(i * 3) % 11},${i % 13}.5,${i % 5},${i % 3},${i % 17},${i % 19},${i % 23}.25,` +
      `${i % 29},${i % 31},${i % 37},2026-01-01T00:${String(i % 60).padStart(2, '0')}:00Z,2026-02-0${1 + (i % 9)}`;
    lines.push(l);
    size += l.length + 1;
  }
  const block = Buffer.from(lines.join('\n') + '\n');
  const fd = fs.openSync(big, 'w');
  fs.writeSync(fd, 'id,a,b,c,d,e,f,g,h,i,j,k,t1,t2\n');
  for (let b = 0; b < BIG_BLOCKS; b++) fs.writeSync(fd, block);
  fs.closeSync(fd);
}
const bigTotal = `${(fs.statSync(big).size / 1e6).toFixed(1)} MB`;

// ---- the CLI ----
const cliEnv = (extra = {}) => tarnEnv(OWNER_ID, OWNER_SECRET, extra);
const run = (target, args, extraEnv = {}) => runTarn(bin, target, args, cliEnv(extraEnv));
function ok(target, args) {
  const r = run(target, [...args, '--json']);
  assert.equal(r.code, 0, `tarn ${args.join(' ')}: exit ${r.code}\n${r.err}`);
  return JSON.parse(r.out);
}
function stagedFiles(catalogDir, id) {
  const d = path.join(catalogDir, 'warehouse', 'uploads', id);
  if (!fs.existsSync(d)) return [];
  return fs.readdirSync(d, { recursive: true }).filter((f) => fs.statSync(path.join(d, f)).isFile());
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- tarn serve ----
let url = '';
let serve = null;
async function startServer() {
  serve = await startServe({ bin, catalog: servedDir, logPath: path.join(dir, 'serve.log'), ownerId: OWNER_ID, ownerSecret: OWNER_SECRET });
  url = serve.url;
}

// ---- tmux ----
const SOCKET = `tarn-tui-${process.pid}`;
// The tmux server inherits the environment of the first client: nothing of tarn's or of an
// enclosing tmux in it. Each app's environment is then set explicitly by `env` in its command.
const tmuxEnv = { ...process.env };
for (const k of Object.keys(tmuxEnv)) {
  if (k.startsWith('TARN_') || k === 'TMUX' || k === 'TMUX_PANE' || k === 'NO_COLOR' || k === 'COLORTERM') {
    delete tmuxEnv[k];
  }
}
function tmux(...args) {
  const r = spawnSync('tmux', ['-L', SOCKET, '-f', '/dev/null', ...args.map(String)], { encoding: 'utf8', env: tmuxEnv });
  assert.equal(r.status, 0, `tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}
// One tmux server for the file, kept alive by an idle session; every window keeps its pane
// after the app ends (remain-on-exit) so the farewell and the exit status can be read. The
// served catalog: a workspace and collection made by the owner, and a writer token for the app
// to sign in with; the embedded one: a workspace and collection.
let writer = null;
before(async () => {
  tmux('new-session', '-d', '-s', 'keep', 'sleep 3600', ';', 'set-option', '-wg', 'remain-on-exit', 'on');
  await startServer();
  ok(url, ['workspace', 'create', 'tui']);
  ok(url, ['collection', 'create', 'tui.data']);
  writer = ok(url, ['token', 'create', '--workspace', 'tui', '--role', 'writer']);
  assert.match(writer.client_id ?? '', /\S/, JSON.stringify(writer));
  assert.match(writer.client_secret ?? '', /\S/);
  ok(embeddedDir, ['workspace', 'create', 'w']);
  ok(embeddedDir, ['collection', 'create', 'w.c']);
});
after(() => {
  const socket = spawnSync('tmux', ['-L', SOCKET, 'display-message', '-p', '#{socket_path}'], { encoding: 'utf8', env: tmuxEnv }).stdout?.trim();
  spawnSync('tmux', ['-L', SOCKET, 'kill-server'], { env: tmuxEnv });
  if (socket) fs.rmSync(socket, { force: true });  // tmux leaves it behind
  if (serve) serve.stop();
  fs.rmSync(big, { force: true });  // 320 MB
});
const sh = (s) => `'${String(s).replaceAll("'", "'\\''")}'`;

// Every screen captured per session, so a test can say what was never shown.
const seen = new Map();

// Opens the app in a new tmux session of 120x40 in `cwd`. `env` is the app's whole tarn-related
// environment (credentials are empty unless given); `unset` names variables removed.
function openApp(session, args, { cwd = dir, env = {}, unset = [] } = {}) {
  const vars = {
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    TARN_CATALOG: '',
    TARN_CLIENT_ID: '',
    TARN_CLIENT_SECRET: '',
    TARN_TOKEN: '',
    TARN_AUTHOR: 'tui-tester',
    ...env,
  };
  const app = ['env', ...['COLORTERM', 'NO_COLOR', ...unset].flatMap((k) => ['-u', k]),
    ...Object.entries(vars).map(([k, v]) => `${k}=${v}`), bin, ...args].map(sh).join(' ');
  // tmux 3.3a does not always learn a dead pane's exit status (#{pane_dead_status} stays empty
  // when the pty's end is seen before SIGCHLD), so the shell also prints it, after the farewell.
  const cmd = `${app}; rc=$?; echo "[tarn exited $rc]"; exit $rc`;
  seen.set(session, []);
  tmux('new-session', '-d', '-x', 120, '-y', 40, '-s', session, '-c', cwd, cmd);
}
// The visible screen (`history`: with the lines scrolled off the top, as after the app ended:
// tmux's "Pane is dead" line scrolls the screen by one).
function capture(session, { escapes = false, history = false } = {}) {
  const text = tmux('capture-pane', '-p', ...(escapes ? ['-e'] : []), ...(history ? ['-S', '-'] : []), '-t', session);
  seen.get(session)?.push(text);
  return text;
}
function paneState(session) {
  const [dead, status] = tmux('display-message', '-p', '-t', session, '#{pane_dead}:#{pane_dead_status}').trim().split(':');
  return { dead: dead === '1', status: status ? Number(status) : null };
}
// Polls the screen every 50 ms until `re` matches; fails with the whole screen.
async function waitFor(session, re, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const text = capture(session);
    if (re.test(text)) return text;
    if (Date.now() > deadline) {
      assert.fail(`waited ${ms} ms for ${re}; the pane showed:\n${text}`);
    }
    if (paneState(session).dead) {
      assert.fail(`the app ended while waiting for ${re}; the pane showed:\n${capture(session, { history: true })}`);
    }
    await sleep(50);
  }
}
// Waits until the app has ended; returns its exit status and the normal screen after it.
async function waitDead(session, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const st = paneState(session);
    const text = capture(session, { history: true });
    const m = text.match(/^\[tarn exited (\d+)\]$/m);
    if (st.dead && m) {
      const status = Number(m[1]);
      if (st.status !== null) assert.equal(st.status, status, text);
      return { status, text };
    }
    if (Date.now() > deadline) assert.fail(`the app did not end in ${ms} ms; the pane showed:\n${text}`);
    await sleep(50);
  }
}
const keys = (session, ...names) => tmux('send-keys', '-t', session, ...names);
const type = (session, text) => tmux('send-keys', '-t', session, '-l', text);
const killSession = (session) => spawnSync('tmux', ['-L', SOCKET, 'kill-session', '-t', session], { env: tmuxEnv });
const lastLine = (text) => text.split('\n').filter((l) => l.trim() !== '').pop() ?? '';
const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// ---- 1. off a terminal ----
test('off a terminal: `tarn` prints the usage (2); `tarn tui` points at tarn push (2)', () => {
  const opts = { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: cliEnv() };
  const bare = spawnSync(bin, [], opts);
  assert.equal(bare.status, 2, `${bare.stdout}\n${bare.stderr}`);
  const usage = bare.stdout + bare.stderr;
  assert.match(usage, /usage/i);
  assert.match(usage, /\bpush\b/);
  assert.match(usage, /\btui\b/);
  const tui = spawnSync(bin, ['tui', '--catalog', embeddedDir], opts);
  assert.equal(tui.status, 2, `${tui.stdout}\n${tui.stderr}`);
  assert.match(tui.stderr, /tarn push/);
  assert.match(tui.stderr, /terminal/);
});

// ---- 2. the whole flow against tarn serve ----
test('served: sign in (a wrong token first), browse two directories, retype, ignore, upload', async () => {
  const ID = writer.client_id;
  const SECRET = writer.client_secret;
  const WRONG = 'wrong-secret-for-this-token';
  const D = 'tui.data.sales';
  const S = 's2';

  openApp(S, ['tui'], { cwd: dirA, env: { TARN_CATALOG: url } });
  let screen = await waitFor(S, /not signed in/);
  for (const h of ['tarn upload', 'FILES', 'ACCOUNT', 'TO', 'PLAN']) {
    assert.match(screen, new RegExp(`^ ${h}`, 'm'), screen);
  }
  assert.ok(screen.includes(url), screen);
  assert.match(lastLine(screen), /c sign in.*q quit/);

  // A wrong access token: refused on the status line; the app goes on.
  keys(S, 'c');
  await waitFor(S, /^ client id:\s*$/m);
  type(S, ID);
  keys(S, 'Enter');
  await waitFor(S, new RegExp(`^ access token for ${esc(ID)}:\\s*$`, 'm'));
  type(S, WRONG);
  screen = await waitFor(S, new RegExp(`access token for ${esc(ID)}: •{${WRONG.length}}\\s*$`, 'm'));
  keys(S, 'Enter');
  screen = await waitFor(S, /sign-in refused/);
  assert.equal(paneState(S).dead, false);
  assert.match(screen, /not signed in/);

  // The right one.
  keys(S, 'c');
  await waitFor(S, /^ client id:\s*$/m);
  type(S, ID);
  keys(S, 'Enter');
  await waitFor(S, new RegExp(`^ access token for ${esc(ID)}:\\s*$`, 'm'));
  type(S, SECRET);
  await waitFor(S, new RegExp(`access token for ${esc(ID)}: •{${SECRET.length}}\\s*$`, 'm'));
  keys(S, 'Enter');
  screen = await waitFor(S, new RegExp(`signed in as ${esc(ID)}`));
  assert.match(screen, new RegExp(`^ ACCOUNT\\n {3}${esc(ID)}`, 'm'));

  // The destination.
  keys(S, 't');
  await waitFor(S, /to \(workspace\.collection\.dataset\):\s*$/m);
  type(S, D);
  keys(S, 'Enter');
  await waitFor(S, new RegExp(`^ {3}${esc(D)}\\s+new dataset`, 'm'));

  // The browser opens in the working directory with the cursor on the top row.
  keys(S, 'a');
  screen = await waitFor(S, /ADD FILES/);
  assert.match(screen, new RegExp(`^ ADD FILES  ${esc(dirA)}\\s*$`, 'm'), screen);
  assert.match(screen, /^ › {3}\.\.\s*$/m, screen);
  assert.match(screen, /^ {5}sub\/\s*$/m, screen);
  // Not CSV, NDJSON or Parquet: listed with the reason, not hidden.
  assert.match(screen, /^ {5}SHA256SUMS\s+64 B\s+not CSV, NDJSON or Parquet/m, screen);
  assert.match(screen, /nothing tagged yet/);
  // .., sub/, SHA256SUMS, alpha.csv: three down is alpha.csv.
  keys(S, 'j', 'Down', 'j');
  await waitFor(S, /^ › {3}alpha\.csv/m);
  keys(S, 'Space');
  screen = await waitFor(S, /^ › ✓ alpha\.csv\s+\d+ B/m);
  assert.match(screen, /^ 1 to add/m);
  // Up to sub/ and into it: the cursor is on the top row again.
  keys(S, 'k', 'k');
  await waitFor(S, /^ › {3}sub\/\s*$/m);
  keys(S, 'Enter');
  screen = await waitFor(S, new RegExp(`^ ADD FILES  ${esc(dirSub)}\\s*$`, 'm'));
  assert.match(screen, /^ › {3}\.\.\s*$/m, screen);
  assert.match(screen, /gamma\.txt\s+9 B\s+not CSV, NDJSON or Parquet/, screen);
  assert.match(screen, /^ 1 to add/m);  // the tag survived the move
  keys(S, 'j');
  await waitFor(S, /^ › {3}gamma\.txt/m);
  // g: the path of directory B; it opens with the cursor on the top row.
  keys(S, 'g');
  await waitFor(S, /path, folder or glob:\s*$/m);
  type(S, dirB);
  keys(S, 'Enter');
  screen = await waitFor(S, new RegExp(`^ ADD FILES  ${esc(dirB)}\\s*$`, 'm'));
  assert.match(screen, /^ › {3}\.\.\s*$/m, screen);
  assert.match(screen, new RegExp(`opened ${esc(dirB)}`), screen);
  keys(S, 'j');
  await waitFor(S, /^ › {3}beta\.csv/m);
  keys(S, 'Space');
  screen = await waitFor(S, /^ › ✓ beta\.csv/m);
  assert.match(screen, /^ 2 to add/m);
  // Esc: back, both on the list with their sizes.
  keys(S, 'Escape');
  screen = await waitFor(S, /added 2 files; 2 files to upload/);
  const sizeA = fs.statSync(alpha).size;
  const sizeB = fs.statSync(beta).size;
  assert.match(screen, new RegExp(`^ FILES\\s+2 files, ${sizeA + sizeB} B`, 'm'), screen);
  assert.match(screen, new RegExp(`^ [ ›] alpha\\.csv\\s+${sizeA} B\\s*$`, 'm'), screen);
  assert.match(screen, new RegExp(`^ {3}beta\\.csv\\s+${sizeB} B\\s*$`, 'm'), screen);

  // n: the plan, nothing written yet.
  keys(S, 'n');
  screen = await waitFor(S, /nothing is written until you accept/);
  assert.match(screen, /^ PLAN\s+.*proposed/m, screen);
  assert.match(screen, /^ {3}column\s+sample\s+type\s*$/m, screen);
  assert.match(screen, /^ › id\s+1\s+INT64\s*$/m, screen);
  assert.match(screen, /^ {3}amount\s+12\.50\s+DECIMAL\(18,2\)\s*$/m, screen);
  assert.match(screen, /^ {3}at\s+2026-01-02T03:04:05Z\s+TIMESTAMPTZ(\[us\])?\s*$/m, screen);
  assert.match(screen, /^ {3}note\s+first\s+VARCHAR\s*$/m, screen);
  assert.match(lastLine(screen), /e retype.*x ignore.*⏎ accept.*u upload/);
  assert.notEqual(run(url, ['dataset', 'show', D]).code, 0);  // negotiating created nothing

  // e on amount: the prompt starts with its type; C-u clears; a new type.
  keys(S, 'Down');
  await waitFor(S, /^ › amount/m);
  keys(S, 'e');
  await waitFor(S, /type of amount: DECIMAL\(18,2\)\s*$/m);
  keys(S, 'C-u');
  await waitFor(S, /type of amount:\s*$/m);
  type(S, 'DECIMAL(10,2)');
  keys(S, 'Enter');
  screen = await waitFor(S, /^ › amount\s+12\.50\s+DECIMAL\(10,2\)\s+was DECIMAL\(18,2\)/m);
  assert.match(screen, /amount retyped/);
  // x on note: read and not written.
  keys(S, 'Down', 'Down');
  await waitFor(S, /^ › note/m);
  keys(S, 'x');
  screen = await waitFor(S, /^ › note\s+first\s+VARCHAR\s+read and not written/m);
  assert.match(screen, /note is read and not written/);
  // Enter: accepted; u: written and committed.
  keys(S, 'Enter');
  screen = await waitFor(S, /agreed: u uploads 2 files and commits/);
  assert.match(screen, /^ PLAN\s+.*accepted/m, screen);
  keys(S, 'u');
  screen = await waitFor(S, /committed snapshot \d+ to tui\.data\.sales: 5 rows/, 20_000);
  const snapshot = Number(screen.match(/committed snapshot (\d+)/)[1]);
  keys(S, 'q');
  const end = await waitDead(S);
  assert.equal(end.status, 0, end.text);
  // Nothing on screen ever showed a token in clear text.
  for (const t of seen.get(S)) {
    assert.ok(!t.includes(SECRET) && !t.includes(WRONG), `a token was shown:\n${t}`);
  }
  killSession(S);

  // The CLI (as the owner) sees both files' rows, the new type, no note.
  const ds = ok(url, ['dataset', 'show', D]);
  const types = Object.fromEntries(ds.schema.map((f) => [f.name, f.type]));
  assert.deepEqual(Object.keys(types), ['id', 'amount', 'at']);
  assert.equal(types.amount, 'DECIMAL(10,2)');
  assert.equal(types.id, 'INT64');
  assert.match(types.at, /^TIMESTAMPTZ/);
  const snaps = ok(url, ['snapshots', D]);
  assert.equal(snaps.length, 1);
  assert.equal(Number(snaps[0].snapshot_id ?? snaps[0].id), snapshot);
  const scanned = run(url, ['scan', D, '--json']);
  assert.equal(scanned.code, 0, scanned.err);
  const rows = scanned.out.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(rows.map((r) => Number(r.id)).sort((a, b) => a - b), [1, 2, 3, 4, 5]);
  assert.ok(rows.every((r) => !('note' in r)), scanned.out);

  // DuckDB reads the committed Parquet files: the same rows and amounts as the CSVs.
  const files = ok(url, ['files', D]);
  assert.ok(files.length >= 1);
  const list = files.map((f) => quote(path.join(servedDir, 'warehouse', f.path))).join(', ');
  const got = await query(`SELECT count(*)::INTEGER AS n, sum(amount)::VARCHAR AS total,
      sum(id)::INTEGER AS ids, string_agg(DISTINCT typeof(amount), ',') AS t
    FROM read_parquet([${list}])`);
  const want = await query(`SELECT count(*)::INTEGER AS n, sum(amount::DECIMAL(10,2))::VARCHAR AS total,
      sum(id::INTEGER)::INTEGER AS ids, 'DECIMAL(10,2)' AS t
    FROM read_csv([${quote(alpha)}, ${quote(beta)}], header = true, all_varchar = true)`);
  assert.deepEqual(got, want);
  assert.equal(got[0].n, 5);
  const cols = await query(`DESCRIBE SELECT * FROM read_parquet([${list}])`);
  assert.deepEqual(cols.map((c) => c.column_name), ['id', 'amount', 'at']);
});

// ---- 3. quitting with a contract open ----
test('embedded: q with an accepted contract abandons it and writes nothing', async () => {
  const S = 's3';
  openApp(S, ['tui', alpha, '--to', 'w.c.d', '--catalog', embeddedDir]);
  let screen = await waitFor(S, /opened as /);
  assert.match(screen, /embedded catalog: no sign-in needed/);
  await waitFor(S, /^ {3}w\.c\.d\s+new dataset/m);
  keys(S, 'n');
  await waitFor(S, /nothing is written until you accept/);
  keys(S, 'Enter');
  screen = await waitFor(S, /agreed: u uploads 1 file and commits/);
  keys(S, 'q');
  const end = await waitDead(S);
  assert.equal(end.status, 0, end.text);
  const m = end.text.match(/^tarn: contract (ct_\d{14}_[0-9a-f]+) abandoned; nothing was written$/m);
  assert.ok(m, end.text);
  killSession(S);
  const id = m[1];
  assert.equal(ok(embeddedDir, ['show', id]).state, 'abandoned');
  const shown = run(embeddedDir, ['dataset', 'show', 'w.c.d']);
  assert.notEqual(shown.code, 0, shown.out);
  assert.match(shown.err, /not found|not_found|no such|does not exist/i);
  assert.deepEqual(stagedFiles(embeddedDir, id), []);
});

// ---- 4. quitting during a large write ----
for (const kind of ['embedded', 'served']) {
  test(`${kind}: q during a large write stops it, abandons the contract, leaves no files`, async () => {
    const S = `s4${kind[0]}`;
    const D = kind === 'embedded' ? 'w.c.big' : 'tui.data.big';
    const catalog = kind === 'embedded' ? embeddedDir : url;
    const catalogDir = kind === 'embedded' ? embeddedDir : servedDir;
    // Served: credentials in the environment, so the app signs in by itself at start.
    const env = kind === 'embedded' ? {} : { TARN_CLIENT_ID: writer.client_id, TARN_CLIENT_SECRET: writer.client_secret };
    openApp(S, ['tui', big, '--to', D, '--catalog', catalog], { env });
    await waitFor(S, kind === 'embedded' ? /opened as / : new RegExp(`signed in as ${esc(writer.client_id)}`));
    await waitFor(S, new RegExp(`^ {3}${esc(D)}\\s+new dataset`, 'm'));
    keys(S, 'n');
    await waitFor(S, /nothing is written until you accept/, 20_000);
    keys(S, 'Enter');
    await waitFor(S, /agreed: u uploads 1 file and commits/);
    keys(S, 'u');
    // The byte counter with a rate, and the bar over all files.
    const screen = await waitFor(S, new RegExp(`writing big\\.csv\\s+[\\d.]+ [kMG]?B / ${esc(bigTotal)}\\s+[\\d.]+ [kMG]?B/s`), 20_000);
    keys(S, 'q');
    assert.match(screen, /\[█|░/, screen);
    assert.match(screen, /^ \[[█░]+\] \d+%\s*$/m, screen);
    assert.match(lastLine(screen), /q quit \(abandons\)/);
    const end = await waitDead(S, 30_000);
    assert.equal(end.status, 0, end.text);
    const m = end.text.match(/^tarn: contract (ct_\d{14}_[0-9a-f]+) abandoned; nothing was written$/m);
    assert.ok(m, end.text);
    killSession(S);
    const id = m[1];
    assert.equal(ok(catalog, ['show', id]).state, 'abandoned');
    const shown = run(catalog, ['dataset', 'show', D]);
    assert.notEqual(shown.code, 0, shown.out);
    assert.match(shown.err, /does not exist|not_found/, shown.err);
    // A write the catalog was still taking in fails and deletes what it staged, its temporary
    // files too (they are invisible to the store's listing, so nothing else would remove them).
    await eventually(() => assert.deepEqual(stagedFiles(catalogDir, id), [],
      `left in ${path.join(catalogDir, 'warehouse', 'uploads', id)}`), 5_000);
  });
}

// ---- 5. resizing; colours ----
test('resize: a narrow screen keeps the key line, a tiny one says too small, back again', async () => {
  const S = 's5';
  openApp(S, ['tui', '--catalog', embeddedDir]);
  let screen = await waitFor(S, /opened as /);
  assert.match(screen, /^ FILES/m);
  assert.match(lastLine(screen), /a add files.*q quit/);

  // 50x14: the layout is redrawn to fit, the key line on the last row.
  tmux('resize-window', '-t', S, '-x', 50, '-y', 14);
  await eventually(() => {
    const t = capture(S);
    const lines = t.replace(/\n$/, '').split('\n');
    assert.equal(lines.length, 14, t);
    assert.match(lines[13], /\bq\b/, t);
    assert.match(lastLine(t), /\bq\b/, t);
    assert.match(t, /^ tarn upload/m, t);
    assert.match(t, /^ FILES/m, t);
    assert.ok(lines.every((l) => [...l].length <= 50), t);
  }, 5_000);

  // 20x5: below 30x8 a short notice instead of the layout; the app keeps running.
  tmux('resize-window', '-t', S, '-x', 20, '-y', 5);
  // (Waited for here and asserted at the end, so that the rest is exercised even when it fails.)
  let tiny = '';
  for (const deadline = Date.now() + 3_000; Date.now() < deadline; await sleep(50)) {
    tiny = capture(S);
    if (/too small/.test(tiny)) break;
  }
  assert.doesNotMatch(tiny, /FILES|tarn upload/, tiny);
  assert.equal(paneState(S).dead, false);

  // Back to 120x40: the whole screen again.
  tmux('resize-window', '-t', S, '-x', 120, '-y', 40);
  screen = await waitFor(S, /^ FILES/m);
  assert.match(screen, /^ tarn upload/m);
  assert.match(screen, /^ ACCOUNT/m);
  assert.match(lastLine(screen), /a add files.*q quit/);
  keys(S, 'q');
  const end = await waitDead(S);
  assert.equal(end.status, 0, end.text);
  killSession(S);
  assert.match(tiny, /too small/, `at 20x5 the pane showed:\n${tiny}`);
});

test('colours: 24-bit with COLORTERM=truecolor, xterm-256 without, none with NO_COLOR', async () => {
  const S = 's5c';
  openApp(S, ['tui', '--catalog', embeddedDir], { env: { COLORTERM: 'truecolor' } });
  await waitFor(S, /opened as /);
  const painted = capture(S, { escapes: true });
  assert.match(painted, /\x1b\[[0-9;]*38;2;\d+;\d+;\d+m/, painted);
  keys(S, 'q');
  assert.equal((await waitDead(S)).status, 0);
  killSession(S);

  const X = 's5x';
  openApp(X, ['tui', '--catalog', embeddedDir]);
  await waitFor(X, /opened as /);
  const indexed = capture(X, { escapes: true });
  assert.match(indexed, /\x1b\[[0-9;]*38;5;\d+m/, indexed);
  assert.doesNotMatch(indexed, /38;2;/, indexed);
  keys(X, 'q');
  assert.equal((await waitDead(X)).status, 0);
  killSession(X);

  const N = 's5n';
  openApp(N, ['tui', '--catalog', embeddedDir], { env: { COLORTERM: 'truecolor', NO_COLOR: '1' } });
  await waitFor(N, /opened as /);
  const plain = capture(N, { escapes: true });
  assert.match(plain, /FILES/);
  assert.doesNotMatch(plain, /38;/, plain);
  keys(N, 'q');
  assert.equal((await waitDead(N)).status, 0);
  killSession(N);
});

// ---- 6. tarn alone at a terminal ----
test('`tarn` with no arguments at a terminal opens the app; q quits with 0', async () => {
  const S = 's6';
  openApp(S, [], { env: { TARN_CATALOG: embeddedDir } });
  const screen = await waitFor(S, /^ tarn upload/m);
  assert.match(screen, /^ FILES/m);
  keys(S, 'q');
  const end = await waitDead(S);
  assert.equal(end.status, 0, end.text);
  assert.doesNotMatch(end.text, /^tarn: /m);  // nothing was open: no farewell
  killSession(S);
});
