// The input files the dataset CLI tests append (dataset_cli.test.mjs embedded,
// remote_cli.test.mjs through tarn serve): a CSV with a partial row and a null timestamp, and an
// NDJSON file with nulls and a missing column.
import fs from 'node:fs';
import path from 'node:path';

export function writeDatasetInputs(dir) {
  const csvA = path.join(dir, 'a.csv');
  fs.writeFileSync(csvA, [
    'id,ts,region,amount,score',
    '1,2026-01-05 10:00:00,eu,10.50,1.5',
    '2,2026-01-20 11:30:00,us,20.00,2.25',
    '3,2026-02-01 00:00:00,eu,3.10,',
    '4,2026-02-14 09:15:00.123456,us,,0.5',
    '5,,eu,7.77,-1',
  ].join('\n') + '\n');
  const ndjsonB = path.join(dir, 'b.ndjson');
  fs.writeFileSync(ndjsonB, [
    '{"id": 6, "ts": "2026-01-07T08:00:00", "region": "us", "amount": 1.00, "score": 3}',
    '{"id": 7, "ts": "2026-03-01T00:00:00", "region": "eu", "amount": 12.34, "score": null}',
    '{"id": 8, "region": "apac", "amount": -0.5}',
  ].join('\n') + '\n');
  return { csvA, ndjsonB };
}
