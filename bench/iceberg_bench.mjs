// Iceberg reads (bench/README.md, "Iceberg"): a 1,000,000-row dataset read whole by icebird (the
// independent npm Iceberg reader) through `tarn serve`'s REST facade and file route, beside the
// same read through the metadata files on local disk (no HTTP) and `tarn scan --json`, in the
// same run; and the facade's loadTable latency, first request (the snapshot's metadata
// produced) and the next ones (found).
//
//   node bench/iceberg_bench.mjs --tarn build/tarn [--rows 1000000] [--files 10] [--runs 3]
//                                [--dir /var/tmp/tarn-iceberg-bench]
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const { icebirdRaw, installFetch } = await import(path.join(here, '..', 'tests', 'interop', 'iceberg_common.mjs'));
const { startServe } = await import(path.join(here, '..', 'tests', 'interop', 'tarn_process.mjs'));

const args = { rows: 1000000, files: 10, runs: 3, dir: '/var/tmp/tarn-iceberg-bench', tarn: '' };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, '');
  if (!(key in args)) throw new Error(`iceberg_bench: unknown option ${process.argv[i]}`);
  args[key] = typeof args[key] === 'number' ? Number(process.argv[i + 1]) : process.argv[i + 1];
}
if (!args.tarn) throw new Error('iceberg_bench: --tarn BINARY is required');
const OWNER_ID = 'tarn_icebergbenchowner01';
const OWNER_SECRET = 'iceberg-bench-owner-secret-0123456789ab';
const catalog = path.join(args.dir, 'catalog');
const D = 'bench.iceberg.rows';
const log = (m) => process.stderr.write(`iceberg_bench: ${m}\n`);
const env = { ...process.env, TARN_AUTHOR: 'bench', NO_COLOR: '1', TARN_CATALOG: '' };
const tarn = (...a) => execFileSync(args.tarn, ['--catalog', catalog, ...a],
  { encoding: 'utf8', env, maxBuffer: 1 << 30 });
const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

fs.rmSync(args.dir, { recursive: true, force: true });
fs.mkdirSync(args.dir, { recursive: true });
tarn('workspace', 'create', 'bench');
tarn('collection', 'create', 'bench.iceberg');
tarn('dataset', 'create', D, '--schema',
  'id INT64 NOT NULL, name VARCHAR, amount DECIMAL(12,2), ts TIMESTAMP[us], score FLOAT64, ok BOOLEAN');
const per = Math.ceil(args.rows / args.files);
for (let f = 0; f < args.files; ++f) {
  const lines = [];
  for (let id = f * per; id < Math.min(args.rows, (f + 1) * per); ++id) {
    lines.push(`${id},name-${id % 1000},${(id % 100000) / 100},2026-01-01T00:00:${String(id % 60).padStart(2, '0')},${id / 7},${id % 2 === 0}`);
  }
  const file = path.join(args.dir, `part${f}.csv`);
  fs.writeFileSync(file, 'id,name,amount,ts,score,ok\n' + lines.join('\n') + '\n');
  tarn('append', D, file);
  fs.rmSync(file);
}
log(`${args.rows} rows in ${args.files} files`);

// tarn scan, rows as JSON lines (the CLI's own full read).
const scanTimes = [];
for (let r = 0; r < args.runs; ++r) {
  const t0 = process.hrtime.bigint();
  const out = spawnSync(args.tarn, ['--catalog', catalog, 'scan', D, '--json'],
    { env, stdio: ['ignore', 'ignore', 'inherit'] });
  if (out.status !== 0) throw new Error('tarn scan failed');
  scanTimes.push(seconds(t0));
}

// icebird through the metadata files on local disk.
installFetch();
const local = JSON.parse(tarn('dataset', 'iceberg', D, '--json'));
const localTimes = [];
for (let r = 0; r < args.runs; ++r) {
  const t0 = process.hrtime.bigint();
  const got = await icebirdRaw(local.metadata);
  localTimes.push(seconds(t0));
  if (got.length !== args.rows) throw new Error(`icebird read ${got.length} rows`);
}

// icebird through the facade: loadTable (first and next requests), then every object over HTTP.
const serve = await startServe({ bin: args.tarn, catalog, logPath: path.join(args.dir, 'serve.log'),
  ownerId: OWNER_ID, ownerSecret: OWNER_SECRET });
const reader = JSON.parse(execFileSync(args.tarn, ['--catalog', serve.url, 'token', 'create',
  '--workspace', 'bench', '--role', 'reader', '--json'],
{ encoding: 'utf8', env: { ...env, TARN_CLIENT_ID: OWNER_ID, TARN_CLIENT_SECRET: OWNER_SECRET } }));
const tokenRes = await fetch(`${serve.url}/iceberg/v1/oauth/tokens`, {
  method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ grant_type: 'client_credentials', client_id: reader.client_id,
    client_secret: reader.client_secret }).toString(),
});
const { access_token: token } = await tokenRes.json();
const tableUrl = `${serve.url}/iceberg/v1/tarn/namespaces/bench%1Ficeberg/tables/rows`;
const loadOnce = async () => {
  const t0 = process.hrtime.bigint();
  const r = await fetch(tableUrl, { headers: { Authorization: `Bearer ${token}` } });
  if (r.status !== 200) throw new Error(`loadTable: ${r.status} ${await r.text()}`);
  const body = await r.json();
  return { ms: seconds(t0) * 1e3, body };
};
const first = await loadOnce();
const again = [];
for (let i = 0; i < 50; ++i) again.push((await loadOnce()).ms);
installFetch({ authPrefix: `${serve.url}/`, headers: { Authorization: `Bearer ${token}` } });
const facadeTimes = [];
for (let r = 0; r < args.runs; ++r) {
  const t0 = process.hrtime.bigint();
  const got = await icebirdRaw(first.body.metadata);
  facadeTimes.push(seconds(t0));
  if (got.length !== args.rows) throw new Error(`icebird read ${got.length} rows`);
}
await serve.stop();

const result = {
  bench: 'iceberg_read',
  rows: args.rows,
  files: args.files,
  tarn_scan_json_s: median(scanTimes),
  icebird_local_files_s: median(localTimes),
  icebird_facade_s: median(facadeTimes),
  facade_over_local: median(facadeTimes) / median(localTimes),
  icebird_facade_over_tarn_scan: median(facadeTimes) / median(scanTimes),
  load_table_first_ms: first.ms,
  load_table_again_p50_ms: pct(again, 50),
  load_table_again_p99_ms: pct(again, 99),
};
console.log(JSON.stringify(result));
console.log(`
| read of ${args.rows} rows (${args.files} files) | seconds (median of ${args.runs}) | ratio |
|---|---|---|
| tarn scan --json | ${result.tarn_scan_json_s.toFixed(2)} | 1.00 |
| icebird, metadata files on local disk | ${result.icebird_local_files_s.toFixed(2)} | ${(result.icebird_local_files_s / result.tarn_scan_json_s).toFixed(2)} |
| icebird through the facade (HTTP) | ${result.icebird_facade_s.toFixed(2)} | ${result.icebird_facade_over_tarn_scan.toFixed(2)} |

loadTable over HTTP: first ${result.load_table_first_ms.toFixed(1)} ms; next p50 ${result.load_table_again_p50_ms.toFixed(2)} ms, p99 ${result.load_table_again_p99_ms.toFixed(2)} ms`);
