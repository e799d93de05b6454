#!/usr/bin/env node
// Reference points for bench/import.mjs, for information: what the same samples file costs
// a reader that does less than an import. `json-parse`: Node's native JSON.parse of every
// line (no order, no number spelling, nothing stored). `duckdb`: DuckDB's own C++ JSON
// reader writing the records to one zstd Parquet file (no checks, no Python-exact
// serialisation, no split into the store's tables) — about the least a columnar import costs.
//   node bench/importFloor.mjs json-parse|duckdb <samples.jsonl> <scratch folder>
import { createReadStream, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';

const [mode, file, scratch] = process.argv.slice(2);
if (mode === 'json-parse') {
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) if (line !== '') JSON.parse(line);
} else if (mode === 'duckdb') {
  const out = join(scratch, 'duckdb-floor.parquet');
  const conn = await (await DuckDBInstance.create(':memory:')).connect();
  const quoted = (s) => `'${s.replaceAll("'", "''")}'`;
  await conn.run(`COPY (SELECT * FROM read_json(${quoted(file)}, format = 'newline_delimited')) TO ${quoted(out)} (FORMAT parquet, COMPRESSION zstd)`);
  rmSync(out, { force: true });
} else {
  throw new Error(`unknown mode ${mode}`);
}
