/**
 * The datastore folder data/<benchmark>/ of an lm-eval task read with the `datasets` library's packaged builder
 * (`dataset_path: json`, local data_files): the gpt2-tiny fixture run's four tasks all went into data/json/, a folder
 * named after a file format. Such a path names no benchmark, as a local file does not: the task's name is used.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

test("EEE export: dataset_path 'json' names no benchmark folder; the task's name does", () => {
  const out = join(mkdtempSync(join(tmpdir(), 'eee-folder-')), 'eee');
  const r = runCli(['export', fixturePath('models/lmeval-reference/gpt2-tiny/plain'), '--format', 'eee', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(readdirSync(join(out, 'data')).sort(), ['arc_easy', 'gsm8k', 'lambada_openai', 'mmlu_abstract_algebra']);
});
