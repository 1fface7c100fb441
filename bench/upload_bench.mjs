// The upload benchmark (bench/README.md, "Uploads"), run by bench/upload_run.sh: CSV to Parquet
// with type inference, `tarn convert` beside DuckDB's COPY on the same file, in the same run,
// runs alternating; `tarn push` into an embedded catalog when the CLI has it; then checks that
// DuckDB reads tarn's file and that both files hold the same rows.
//
//   node bench/upload_bench.mjs --csv FILE --dir DIR --tarn BIN [--runs N] [--threads N]
//                               [--inprocess BIN]
//
// --inprocess names build/bench/upload_bench: it is also timed (ConvertFiles writing a plain
// file, without the CLI's fsync and rename), as a breakdown. Prints one JSON object per
// measurement on stdout, then a summary object ({"summary": ...}); progress on stderr.
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'tests', 'interop', 'package.json'));
const { DuckDBInstance, version } =
    await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const args = { csv: '', dir: '', tarn: '', runs: 5, threads: 2, inprocess: '' };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, '');
  const value = process.argv[i + 1];
  if (!(key in args) || value === undefined) {
    console.error(`upload_bench: unknown option ${process.argv[i]}`);
    process.exit(2);
  }
  args[key] = typeof args[key] === 'number' ? Number(value) : value;
}
if (!args.csv || !args.dir || !args.tarn) {
  console.error('usage: node bench/upload_bench.mjs --csv FILE --dir DIR --tarn BIN [--runs N]');
  process.exit(2);
}

const say = (s) => process.stderr.write(`upload bench: ${s}\n`);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const now = () => Number(process.hrtime.bigint()) / 1e9;
const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
const emit = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const load = () => {
  try {
    return spawnSync('cat', ['/proc/loadavg']).stdout.toString().split(' ').slice(0, 3).join(' ');
  } catch {
    return '?';
  }
};

const bytes = statSync(args.csv).size;
const mb = bytes / 1e6;
const tarnOut = join(args.dir, 'tarn.parquet');
const duckOut = join(args.dir, 'duck.parquet');
const inprocOut = join(args.dir, 'tarn-inprocess.parquet');

// Runs a command, returns its wall time in seconds; exits on failure.
const timed = (bin, argv, env = {}) => {
  const start = now();
  const r = spawnSync(bin, argv, { env: { ...process.env, NO_COLOR: '1', ...env },
    maxBuffer: 1 << 26 });
  const secs = now() - start;
  if (r.status !== 0) {
    console.error(r.stdout?.toString(), r.stderr?.toString());
    throw new Error(`${bin} ${argv.join(' ')}: exit ${r.status}`);
  }
  return { secs, stdout: r.stdout.toString() };
};
const hasCommand = (name) =>
  spawnSync(args.tarn, [name, '--help'], { env: { ...process.env, NO_COLOR: '1' } }).status === 0;

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`SET threads = ${args.threads}`);

const tarnConvert = () => timed(args.tarn, ['convert', args.csv, tarnOut, '--infer',
  '--compression', 'zstd']).secs;
const duckCopy = async () => {
  rmSync(duckOut, { force: true });
  const start = now();
  await c.run(`COPY (SELECT * FROM read_csv(${sqlString(args.csv)})) TO ${sqlString(duckOut)}
               (FORMAT parquet, COMPRESSION zstd)`);
  return now() - start;
};
const inprocess = () => {
  const r = timed(args.inprocess, ['convert', args.csv, inprocOut, '--infer', '--threads',
    String(args.threads)]);
  return JSON.parse(r.stdout.trim().split('\n').pop()).seconds;
};

// One embedded catalog per run, so every push creates the dataset afresh.
let pushRun = 0;
const tarnPush = () => {
  const catalog = join(args.dir, `catalog-${pushRun++}`);
  rmSync(catalog, { recursive: true, force: true });
  mkdirSync(catalog, { recursive: true });
  const g = ['--catalog', catalog];
  timed(args.tarn, [...g, 'workspace', 'create', 'w', '--exists-ok']);
  timed(args.tarn, [...g, 'collection', 'create', 'w.c', '--exists-ok']);
  const secs = timed(args.tarn, [...g, 'push', args.csv, '--to', 'w.c.d', '--yes']).secs;
  rmSync(catalog, { recursive: true, force: true });
  return secs;
};

const haveConvert = hasCommand('convert');
const havePush = hasCommand('push');
const haveInprocess = args.inprocess && existsSync(args.inprocess);
if (!haveConvert) say(`${args.tarn} has no convert command: tarn convert is skipped`);
if (!havePush) say(`${args.tarn} has no push command: tarn push is skipped`);

say(`${(mb).toFixed(1)} MB CSV, ${args.runs} runs, DuckDB ${version()} with ${args.threads} ` +
    `threads, load average ${load()}`);
const times = { tarn_convert: [], duckdb_copy: [], tarn_inprocess: [], tarn_push: [] };
for (let run = 0; run < args.runs; ++run) {
  // Alternate who goes first, so neither always meets a warmer page cache or a quieter machine.
  const steps = [];
  if (haveConvert) steps.push(['tarn_convert', tarnConvert]);
  steps.push(['duckdb_copy', duckCopy]);
  if (run % 2 === 1) steps.reverse();
  if (haveInprocess) steps.push(['tarn_inprocess', inprocess]);
  if (havePush) steps.push(['tarn_push', tarnPush]);
  for (const [name, fn] of steps) {
    const secs = await fn();
    times[name].push(secs);
    emit({ bench: name, run, seconds: secs, mb_s: mb / secs, input_bytes: bytes, load: load() });
    say(`run ${run + 1}/${args.runs} ${name}: ${secs.toFixed(3)} s, ${(mb / secs).toFixed(1)} MB/s`);
  }
}

// Checks: DuckDB reads tarn's file; both files hold the rows of the CSV, with the same values.
const checks = {};
const one = async (sql) => (await c.runAndReadAll(sql)).getRows()[0];
const csvRows = Number((await one(`SELECT count(*) FROM read_csv(${sqlString(args.csv)})`))[0]);
checks.csv_rows = csvRows;
const aggregates = (f) => `SELECT count(*), sum(id)::VARCHAR, sum(quantity)::VARCHAR,
    count(amount), sum(amount::DECIMAL(18,2))::VARCHAR, sum(price)::DECIMAL(38,3)::VARCHAR,
    sum(epoch_us(created_at)::HUGEINT)::VARCHAR, sum(epoch_us(updated_at)::HUGEINT)::VARCHAR,
    count(ship_date), sum(ship_date - DATE '2024-01-01')::VARCHAR, count(DISTINCT country),
    sum(length(status)), sum(length(email)), count(comment), sum(length(comment)),
    sum(is_gift::INTEGER) FROM read_parquet(${sqlString(f)})`;
const files = [duckOut];
if (haveConvert) files.push(tarnOut);
if (haveInprocess) files.push(inprocOut);
let reference = null;
for (const f of files) {
  const row = (await one(aggregates(f))).map(String);
  checks[f] = { rows: Number(row[0]), matches_csv: Number(row[0]) === csvRows };
  if (reference === null) {
    reference = row;
  } else {
    checks[f].same_values_as_duckdb = JSON.stringify(row) === JSON.stringify(reference);
    if (!checks[f].same_values_as_duckdb) {
      say(`MISMATCH ${f}: ${JSON.stringify(row)} vs DuckDB's ${JSON.stringify(reference)}`);
    }
  }
  checks[f].size_mb = statSync(f).size / 1e6;
}

const med = (k) => (times[k].length ? median(times[k]) : null);
const summary = {
  input_mb: mb,
  runs: args.runs,
  duckdb_version: version(),
  threads: args.threads,
  tarn_convert_s: med('tarn_convert'),
  duckdb_copy_s: med('duckdb_copy'),
  tarn_inprocess_s: med('tarn_inprocess'),
  tarn_push_s: med('tarn_push'),
  checks,
  load_end: load(),
};
for (const k of ['tarn_convert', 'duckdb_copy', 'tarn_inprocess', 'tarn_push']) {
  summary[`${k}_mb_s`] = med(k) ? mb / med(k) : null;
}
if (summary.tarn_convert_s) summary.ratio = summary.duckdb_copy_s / summary.tarn_convert_s;
if (summary.tarn_inprocess_s) {
  summary.ratio_inprocess = summary.duckdb_copy_s / summary.tarn_inprocess_s;
}
emit({ summary });
const ok = Object.values(checks).every((v) => typeof v !== 'object' ||
  (v.matches_csv && v.same_values_as_duckdb !== false));
if (!ok) {
  say('CHECK FAILED: the files do not hold the same rows');
  process.exit(1);
}
