// Nested NDJSON benchmark (bench/README.md, "Nested NDJSON"; issue 21): N events whose payload
// is a 3-level nested value (a struct holding a list of structs and a map), converted to ZSTD
// Parquet by `tarn convert --infer` and by DuckDB's `COPY (SELECT * FROM read_json(...)) TO ...
// (FORMAT parquet)` with the same threads, alternating who goes first; then each engine reads its
// own file back whole as JSON lines to /dev/null (`tarn parquet cat --json`, DuckDB `COPY (SELECT *
// FROM read_parquet(...)) TO '/dev/null' (FORMAT json)`).
// DuckDB reads tarn's file: row count and sums over nested leaves must equal its own file's.
//
// Payload: {user: {id, country}, items: [{sku, qty, price}, ...], attrs: {a17: 3, ...}} (tarn
// infers STRUCT<user: STRUCT<..>, items: ARRAY<STRUCT<..>>, attrs: MAP<VARCHAR, INT64>>).
//
//   node bench/nested_bench.mjs [--events N] [--runs N] [--threads N] [--tarn BIN] [--dir DIR]
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { once } from 'node:events';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'tests', 'interop', 'package.json'));
const { DuckDBInstance, version } =
    await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);

const args = { events: 1000000, runs: 3, threads: 2, tarn: join(here, '..', 'build', 'tarn'),
               dir: '' };
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, '');
  args[k] = typeof args[k] === 'number' ? Number(process.argv[i + 1]) : process.argv[i + 1];
}
const say = (s) => process.stderr.write(`nested bench: ${s}\n`);
const dir = args.dir || mkdtempSync('/var/tmp/tarn-nested-bench.');
const input = join(dir, 'events.ndjson');

// Deterministic events (xorshift32).
let seed = 2463534242;
const rnd = () => {
  seed ^= seed << 13; seed >>>= 0; seed ^= seed >>> 17; seed ^= seed << 5; seed >>>= 0;
  return seed;
};
const kinds = ['view', 'click', 'purchase', 'refund'];
const skus = ['A-100', 'B-200', 'C-300', 'D-400', 'E-500', 'F-600'];
{
  say(`generating ${args.events} events in ${input}`);
  const out = createWriteStream(input);
  let buf = '';
  for (let i = 0; i < args.events; ++i) {
    const items = [];
    for (let k = rnd() % 4; k > 0; --k) {
      items.push({ sku: skus[rnd() % skus.length], qty: 1 + (rnd() % 5),
                   price: (rnd() % 100000) / 100 });
    }
    const attrs = {};  // keys that look like data: inferred as MAP<VARCHAR, INT64>
    for (let k = rnd() % 4; k > 0; --k) attrs[`a${rnd() % 500}`] = rnd() % 1000;
    const ev = { id: i, at: new Date(1700000000000 + i * 1000).toISOString(),
                 kind: kinds[rnd() % kinds.length],
                 payload: { user: { id: rnd() % 100000, country: ['DE', 'FR', 'US'][rnd() % 3] },
                            items, attrs } };
    buf += JSON.stringify(ev) + '\n';
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}
const mb = statSync(input).size / 1e6;

const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`SET threads = ${args.threads}`);
const now = () => Number(process.hrtime.bigint()) / 1e9;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const tarnOut = join(dir, 'tarn.parquet');
const duckOut = join(dir, 'duck.parquet');
const times = { tarn_convert: [], duck_copy: [], tarn_read: [], duck_read: [] };

const tarnConvert = () => {
  rmSync(tarnOut, { force: true });
  const t0 = now();
  const r = spawnSync(args.tarn, ['convert', input, tarnOut, '--infer', '--compression', 'zstd'],
                      { stdio: ['ignore', 'ignore', 'pipe'] });
  if (r.status !== 0) throw new Error(`tarn convert: ${r.stderr}`);
  times.tarn_convert.push(now() - t0);
};
const duckCopy = async () => {
  rmSync(duckOut, { force: true });
  const t0 = now();
  await c.run(`COPY (SELECT * FROM read_json('${input}')) TO '${duckOut}' ` +
              `(FORMAT parquet, COMPRESSION zstd)`);
  times.duck_copy.push(now() - t0);
};
const tarnRead = () => {
  const t0 = now();
  const r = spawnSync(args.tarn, ['parquet', 'cat', tarnOut, '--json', '--limit', '0'],
                      { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`tarn parquet cat: ${r.stderr}`);
  times.tarn_read.push(now() - t0);
};
const duckRead = async () => {
  // The same work as tarn's read: every row rendered as one JSON object per line.
  const t0 = now();
  await c.run(`COPY (SELECT * FROM read_parquet('${duckOut}')) TO '/dev/null' (FORMAT json)`);
  times.duck_read.push(now() - t0);
};

say(`${mb.toFixed(1)} MB NDJSON, ${args.runs} runs, DuckDB ${version()}, ${args.threads} threads`);
for (let run = 0; run < args.runs; ++run) {
  if (run % 2 === 0) { tarnConvert(); await duckCopy(); } else { await duckCopy(); tarnConvert(); }
  if (run % 2 === 0) { tarnRead(); await duckRead(); } else { await duckRead(); tarnRead(); }
  say(`run ${run + 1}: ${JSON.stringify(Object.fromEntries(
      Object.entries(times).map(([k, v]) => [k, +v[v.length - 1].toFixed(3)])))}`);
}

// Same rows and values, read by DuckDB from both files.
const check = `SELECT count(*) AS n, sum(id) AS ids, sum(payload.user.id) AS users,
  sum(len(payload.items)) AS items, sum(list_sum(list_transform(payload.items, x -> x.qty))) AS qty,
  count(payload.attrs) AS attrs FROM read_parquet(?)`;
const sums = [];
for (const f of [tarnOut, duckOut]) {
  const r = await c.runAndReadAll(check.replace('?', `'${f}'`));
  sums.push(JSON.stringify(r.getRowObjectsJson()[0]));
}
const same = sums[0] === sums[1];
const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
const summary = {
  events: args.events, input_mb: mb, runs: args.runs, threads: args.threads,
  duckdb_version: version(), ...m,
  convert_ratio: m.duck_copy / m.tarn_convert,  // tarn MB/s over DuckDB MB/s
  read_ratio: m.tarn_read / m.duck_read,        // tarn time over DuckDB time
  tarn_schema: spawnSync(args.tarn, ['parquet', 'schema', tarnOut]).stdout.toString().trim(),
  same_values: same, sums,
};
console.log(JSON.stringify(summary, null, 2));
if (!args.dir) rmSync(dir, { recursive: true, force: true });
if (!same) process.exit(1);
