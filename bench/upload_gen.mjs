// Writes the deterministic CSV of the upload benchmark (bench/README.md, "Uploads"):
//
//   node bench/upload_gen.mjs --out data.csv [--mb 200]
//
// Rows are generated until the file holds --mb MB (10^6 bytes); the same options always give
// the same bytes. Columns, a realistic export mix:
//   id           INT64, increasing from 1000000000
//   customer_id  INT64, pseudo-random up to 10^9
//   quantity     INT64, 1..200
//   amount       DECIMAL(p,2): always two places ("-3.10", "1234.56"); 1% empty (null)
//   price        FLOAT64, shortest round-trip text of a double (varying scale)
//   created_at   TIMESTAMPTZ, ISO 8601 with milliseconds and Z
//   updated_at   TIMESTAMP, "YYYY-MM-DD HH:MM:SS"
//   ship_date    DATE; 2% empty
//   country      short string (2 letters)
//   status       short string (one of 6 words)
//   email        medium string (~25 chars)
//   comment      medium string of 3-9 words (~20-60 chars), quoted when it holds a comma;
//                3% empty
//   is_gift      BOOLEAN (true/false)
import { openSync, writeSync, closeSync } from 'node:fs';

const args = { out: '', mb: 200 };
for (let i = 2; i < process.argv.length; i += 2) {
  const key = process.argv[i].replace(/^--/, '');
  const value = process.argv[i + 1];
  if (!(key in args) || value === undefined) {
    console.error(`upload_gen: unknown option ${process.argv[i]}`);
    process.exit(2);
  }
  args[key] = key === 'out' ? value : Number(value);
}
if (!args.out) {
  console.error('usage: node bench/upload_gen.mjs --out FILE [--mb N]');
  process.exit(2);
}

// xorshift64* on BigInt is slow; a 32-bit xorshift pair is enough and deterministic.
let s0 = 0x9e3779b9 | 0;
let s1 = 0x243f6a88 | 0;
const next = () => {
  // xorshift64 split in two 32-bit halves (Marsaglia's xorshift128 variant on two words).
  let t = s0 ^ (s0 << 11);
  s0 = s1;
  s1 = s1 ^ (s1 >>> 19) ^ (t ^ (t >>> 8));
  return s1 >>> 0;
};
const below = (n) => next() % n;

const countries = ['US', 'DE', 'FR', 'GB', 'JP', 'BR', 'IN', 'CA', 'ES', 'IT', 'NL', 'SE'];
const statuses = ['pending', 'paid', 'shipped', 'delivered', 'returned', 'cancelled'];
const words = ['fast', 'delivery', 'please', 'leave', 'at', 'door', 'gift', 'wrap', 'blue',
  'large', 'small', 'thanks', 'again', 'order', 'ring', 'bell', 'back', 'entrance', 'fragile',
  'handle', 'with', 'care', 'call', 'before', 'arrival', 'no', 'rush'];
const pad2 = (n) => (n < 10 ? '0' : '') + n;
const pad3 = (n) => (n < 10 ? '00' : n < 100 ? '0' : '') + n;

// 2024-01-01T00:00:00Z in seconds.
const base = 1704067200;
const iso = (secs) => new Date(secs * 1000).toISOString().slice(0, 19);

const target = args.mb * 1e6;
const fd = openSync(args.out, 'w');
let written = 0;
let chunk = [];
let chunkBytes = 0;
const flush = () => {
  const s = chunk.join('');
  writeSync(fd, s);
  chunk = [];
  chunkBytes = 0;
};
const header = 'id,customer_id,quantity,amount,price,created_at,updated_at,ship_date,country,' +
  'status,email,comment,is_gift\n';
chunk.push(header);
chunkBytes += header.length;
written += header.length;
let rows = 0;
while (written < target) {
  const id = 1000000000 + rows;
  const customer = below(1000000000);
  const quantity = 1 + below(200);
  const cents = below(1000000) - (below(10) === 0 ? 500000 : 0);
  let amount = '';
  if (below(100) !== 0) {
    const neg = cents < 0;
    const c = Math.abs(cents);
    amount = (neg ? '-' : '') + Math.floor(c / 100) + '.' + pad2(c % 100);
  }
  const price = String((next() / 4294967296) * 1000 + below(5));
  const created = base + rows * 13 + below(13);
  const createdText = iso(created) + '.' + pad3(below(1000)) + 'Z';
  const updatedText = iso(created + below(86400 * 3)).replace('T', ' ');
  const shipDate = below(50) === 0 ? '' : iso(created + 86400 * (1 + below(10))).slice(0, 10);
  const country = countries[below(countries.length)];
  const status = statuses[below(statuses.length)];
  const email = 'user' + below(10000000) + '@example' + below(100) + '.com';
  let comment = '';
  if (below(100) >= 3) {
    const n = 3 + below(7);
    const w = [];
    for (let k = 0; k < n; ++k) w.push(words[below(words.length)]);
    if (below(10) === 0) w[1] += ',';
    comment = w.join(' ');
    if (comment.includes(',')) comment = '"' + comment + '"';
  }
  const gift = below(4) === 0 ? 'true' : 'false';
  const line = `${id},${customer},${quantity},${amount},${price},${createdText},${updatedText},` +
    `${shipDate},${country},${status},${email},${comment},${gift}\n`;
  chunk.push(line);
  chunkBytes += line.length;
  written += line.length;
  ++rows;
  if (chunkBytes > 1 << 22) flush();
}
flush();
closeSync(fd);
process.stdout.write(JSON.stringify({ rows, bytes: written }) + '\n');
