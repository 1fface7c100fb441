// Avro interop with the npm package avsc as the independent peer, both ways:
//   - container files tarn writes (null and deflate codecs, one block and many) are read by
//     avsc: same objects, the writer's metadata pairs, Iceberg's field-id attributes kept in the
//     schema;
//   - files avsc writes (every type, both codecs, many blocks) are read by tarn: same objects.
// Objects are compared in Avro's JSON encoding: tarn's tool prints it (`tarn_avro_tool cat`),
// avsc's Type#toString gives it. tarn's side is tests/tools/avro_tool.cc (TARN_AVRO_TOOL).
import { test, describe as suite } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import avro from 'avsc';
import { scratch } from './duckdb_compare.mjs';

const TOOL = process.env.TARN_AVRO_TOOL;

function tool(args) {
  assert.ok(TOOL, 'TARN_AVRO_TOOL is not set (ctest sets it: integration.interop.avro)');
  const r = spawnSync(TOOL, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.equal(r.status, 0, `tarn_avro_tool ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

// Unions wrapped ({"long": 5}), as the JSON encoding writes them.
const parseHook = (schema) => avro.Type.forSchema(schema, { wrapUnions: true });

// Reads a container file with avsc: { type, codec, header, values }.
function avscRead(file) {
  return new Promise((resolve, reject) => {
    const out = { values: [] };
    avro.createFileDecoder(file, { parseHook })
      .on('metadata', (type, codec, header) => Object.assign(out, { type, codec, header }))
      .on('data', (v) => out.values.push(v))
      .on('error', reject)
      .on('end', () => resolve(out));
  });
}

function avscWrite(file, schema, values, opts) {
  return new Promise((resolve, reject) => {
    const enc = new avro.streams.BlockEncoder(parseHook(schema), opts);
    const out = fs.createWriteStream(file);
    enc.on('error', reject);
    out.on('error', reject);
    out.on('finish', resolve);
    enc.pipe(out);
    for (const v of values) enc.write(v);
    enc.end();
  });
}

function tarnLines(file) {
  return tool(['cat', file]).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}

function countSyncs(buf, sync) {
  let n = 0;
  for (let at = buf.indexOf(sync); at >= 0; at = buf.indexOf(sync, at + 1)) n++;
  return n;
}

suite('avsc reads what tarn writes', () => {
  const dir = scratch('avro-tarn-writes');
  const variants = [
    { name: 'null', args: ['--codec', 'null'] },
    { name: 'deflate', args: ['--codec', 'deflate'] },
    { name: 'null-small-blocks', args: ['--codec', 'null', '--block-bytes', '1000'] },
    { name: 'deflate-small-blocks', args: ['--codec', 'deflate', '--block-bytes', '1000'] },
  ];
  for (const v of variants) {
    test(v.name, async () => {
      const file = path.join(dir, `${v.name}.avro`);
      tool(['write-sample', file, '--rows', '3000', ...v.args]);
      const got = await avscRead(file);
      assert.equal(got.codec, v.name.startsWith('deflate') ? 'deflate' : 'null');
      assert.equal(got.header.meta['format-version'].toString(), '2');
      assert.equal(got.header.meta['tarn-sample'].toString(), 'yes');
      const schema = JSON.parse(got.header.meta['avro.schema'].toString());
      assert.deepEqual(schema.fields.map((f) => f['field-id']),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 17]);
      assert.equal(schema.fields[9].type[1]['element-id'], 11);
      assert.equal(schema.fields[10].type['key-id'], 13);
      const blocks = countSyncs(fs.readFileSync(file), got.header.sync) - 1;
      if (v.name.includes('small')) assert.ok(blocks > 50, `${blocks} blocks`);
      const mine = tarnLines(file);
      assert.equal(got.values.length, 3000);
      assert.equal(mine.length, 3000);
      for (let i = 0; i < mine.length; i++) {
        assert.deepEqual(mine[i], JSON.parse(got.type.toString(got.values[i])), `row ${i}`);
      }
    });
  }
});

// Every Avro type, with values avsc writes.
const SCHEMA = {
  type: 'record', name: 'peer', namespace: 'avsc.test', fields: [
    { name: 'n', type: 'null' },
    { name: 'b', type: 'boolean' },
    { name: 'i', type: 'int' },
    { name: 'l', type: 'long', 'field-id': 4 },
    { name: 'f', type: 'float' },
    { name: 'd', type: 'double' },
    { name: 'by', type: 'bytes' },
    { name: 's', type: 'string' },
    { name: 'e', type: { type: 'enum', name: 'Suit', symbols: ['SPADES', 'HEARTS', 'CLUBS'] } },
    { name: 'fx', type: { type: 'fixed', name: 'Id', size: 3 } },
    { name: 'a', type: { type: 'array', items: ['null', 'int'] } },
    { name: 'm', type: { type: 'map', values: { type: 'array', items: 'string' } } },
    { name: 'u', type: ['null', 'string', 'Suit', {
      type: 'record', name: 'Point', fields: [{ name: 'x', type: 'double' }] }] },
    { name: 'next', type: ['null', 'peer'] },
  ],
};

function peerValue(i, depth = 0) {
  const unions = [
    null, { string: `s${i} é` }, { 'avsc.test.Suit': 'CLUBS' }, { 'avsc.test.Point': { x: i / 4 } },
  ];
  return {
    n: null,
    b: i % 2 === 1,
    i: (i * 7919) % 2147483647 - 1000000000,
    l: i * 1000000007 - 2 ** 50,
    f: i + 0.25,
    d: i / 8 - 1e6,
    by: Buffer.from(Array.from({ length: i % 6 }, (_, k) => (i * 31 + k * 97) & 255)),
    s: `row ${i} ✓`,
    e: ['SPADES', 'HEARTS', 'CLUBS'][i % 3],
    fx: Buffer.from([i & 255, (i >> 8) & 255, 7]),
    a: Array.from({ length: i % 4 }, (_, k) => (k === 1 ? null : { int: k * i })),
    m: Object.fromEntries(Array.from({ length: i % 3 }, (_, k) => [`k${k}`, [`v${i}`, '']])),
    u: unions[i % 4],
    next: depth < 2 && i % 5 === 0 ? { 'avsc.test.peer': peerValue(i + 1, depth + 1) } : null,
  };
}

suite('tarn reads what avsc writes', () => {
  const dir = scratch('avro-avsc-writes');
  for (const codec of ['null', 'deflate']) {
    test(codec, async () => {
      const file = path.join(dir, `${codec}.avro`);
      const values = Array.from({ length: 2000 }, (_, i) => peerValue(i));
      await avscWrite(file, SCHEMA, values, {
        codec, blockSize: 4096, metadata: { 'written-by': Buffer.from('avsc') },
      });
      const type = parseHook(SCHEMA);
      const back = await avscRead(file);  // avsc's own reading, as a check of the file
      assert.equal(back.values.length, values.length);
      const meta = JSON.parse(tool(['meta', file]));
      assert.equal(meta['avro.codec'], codec);
      assert.equal(meta['written-by'], 'avsc');
      const mine = tarnLines(file);
      assert.equal(mine.length, values.length);
      for (let i = 0; i < values.length; i++) {
        assert.deepEqual(mine[i], JSON.parse(type.toString(values[i])), `row ${i}`);
      }
      const blocks = countSyncs(fs.readFileSync(file), back.header.sync) - 1;
      assert.ok(blocks > 10, `${blocks} blocks`);
    });
  }
});
