/**
 * `--gen_kwargs max_gen_toks=None,max_new_tokens=5`: lm-eval's normalize_gen_kwargs takes the first max-token alias
 * that is given and not None (max_new_tokens, 5). lmaudit run sent 5, but its provenance took the first alias present,
 * recorded the configured limit as null beside the 5 used, and the record contradicted itself.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';

test('a None max_gen_toks beside max_new_tokens: the configured limit is the alias lm-eval takes, as the one sent', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-max-alias-'));
  const r = runCli(['run', '--model', 'dummy', '--tasks', 'gsm8k', '--limit', '1', '--gen_kwargs', 'max_gen_toks=None,max_new_tokens=5', '--out', join(dir, 'store')]);
  assert.equal(r.status, 0, r.stderr);
  const max = JSON.parse(readFileSync(join(dir, 'store', 'provenance.json'), 'utf8')).runs[0].tasks.gsm8k.generation.max_tokens;
  assert.deepEqual([max.configured.value, max.used.value], [5, 5]);
});
