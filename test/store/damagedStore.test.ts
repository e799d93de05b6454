import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';
import { fixturePath } from '../helpers/fixtures.ts';

// A store is a folder (provenance.json and its Parquet tables). Two ways a user meets one where outputs were
// expected, and one store that lost a table: each was "nothing importable found", listing the store's own files
// as unknown JSON and Parquet, which says nothing of what is wrong.
const work = mkdtempSync(join(tmpdir(), 'lmaudit-damaged-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const store = join(work, 'store');
const made = runCli(['import', fixturePath('lmeval/bigrefactor-2023-06'), '--out', store]);
assert.equal(made.status, 0, made.stderr);

const fails = (args: string[]) => {
  const r = runCli(args, { cwd: work });
  assert.equal(r.status, 2, r.stdout);
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  return r.stderr.trim();
};

test('a store missing one of its tables is named as such, by every command that reads it', () => {
  for (const table of ['instances', 'responses']) {
    const damaged = join(work, `no-${table}`);
    cpSync(store, damaged, { recursive: true });
    rmSync(join(damaged, `${table}.parquet`));
    const message = `lmaudit: no-${table}/${table}.parquet: missing: the store's manifest (provenance.json) is there, its ${table} table is not`;
    for (const command of ['ls', 'rescore', 'report']) assert.equal(fails([command, `no-${table}`]), message);
  }
});

test('importing a store, or naming a store beside other sources, says what the store is', () => {
  assert.equal(
    fails(['import', 'store', '--out', 'copy']),
    'lmaudit: store: an lmaudit run store, not outputs to import: rescore, diff, report, ls, view and export read it as it is (to copy it, copy the folder)',
  );
  assert.equal(existsSync(join(work, 'copy')), false, 'nothing written');
  assert.equal(fails(['rescore', 'store', fixturePath('lmeval/pr2236-asdiv/asdiv')]), 'lmaudit: store: an lmaudit run store is read alone, not together with other sources: name it by itself');
});
