/**
 * lm-eval v0.3's --write_out wrote prompt_i as "".join(map(lambda x: "".join(x), req.args)) (evaluator.py): the
 * context joined with the request's second argument. Mistral-7B's truthfulqa_gen write_out (fixtures/external,
 * lm-eval PR #1567) sent greedy_until(ctx, {"until": ["\n\n"]}), so every prompt_0 ends in "until" (python3: all 817);
 * lmaudit showed and diffed that text as the prompt without a word. Winogrande's prompt_i is context + continuation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importSources } from '../../../src/import/index.ts';
import { externalFixture } from '../../helpers/fixtures.ts';

const dir = externalFixture('lm-evaluation-harness/pr1567-slurmevals/mistral');

test('a v0.3 write_out run says what its prompt_i holds', async () => {
  const { runs } = await importSources([`${dir}/truthfulqa_gen_write_out_info.json`, `${dir}/winogrande_write_out_info.json`], { skipBad: false, fields: {} });
  const note = (task: string) => runs.flatMap((r) => r.provenance.notes).find((n) => n.task === task && n.kind === 'write_out_prompt')!.message;
  assert.equal(
    note('truthfulqa_gen'),
    'prompt_i is v0.3\'s "".join over each request\'s arguments: the context followed by its generation arguments joined (a dict of them joins its keys: 817 of 817 prompts here end in "until"); the context the model was sent is a prefix of it whose end the file does not mark, so prompts shown and compared are that whole text',
  );
  assert.match(note('winogrande'), /the context followed by the continuation scored;/);
});

test('a write_out file with a doc_id twice is refused naming the line, as a samples file is', async () => {
  // Written with indent 4, a record opens on line 2 or 11 and its doc_id is on the next line; logit_0 and logit_1 are
  // its 4th and 6th members (lines 6 and 8, or 15 and 17): the location is the field's line, the detail the records'.
  // Mistral's winogrande write_out, the second record's doc_id set to the first's. Imported, the records were counted
  // twice over: the as-recorded acc was over n = 1,269 of a 1,267-record file.
  const records = JSON.parse(readFileSync(`${dir}/winogrande_write_out_info.json`, 'utf8'));
  records[1].doc_id = records[0].doc_id;
  const out = mkdtempSync(join(tmpdir(), 'lmaudit-writeout-'));
  try {
    const file = join(out, 'winogrande_write_out_info.json');
    writeFileSync(file, JSON.stringify(records.slice(0, 3), null, 4));
    await assert.rejects(importSources([file], { skipBad: false, fields: {} }), (e: Error & { exitCode?: number }) => e.exitCode === 2 && e.message.startsWith(`${file}, line 12, field 'doc_id': doc_id 0 appears twice under filter 'none' (line 2 and line 11)`));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test("a write_out record mixing generated text and log-probabilities is refused naming its logit_i (not a 'resps' field it does not have)", async () => {
  // Winogrande's first record with logit_0 "x": the error named field 'resps', "request 1 repeat 0", and called the
  // number in logit_1 a wrongly typed generated text.
  const records = JSON.parse(readFileSync(`${dir}/winogrande_write_out_info.json`, 'utf8'));
  const out = mkdtempSync(join(tmpdir(), 'lmaudit-writeout-'));
  try {
    const file = join(out, 'winogrande_write_out_info.json');
    writeFileSync(file, JSON.stringify([{ ...records[0], logit_0: 'x' }, records[1]], null, 4));
    await assert.rejects(importSources([file], { skipBad: false, fields: {} }), (e: Error) => e.message === `${file}, line 8, field 'logit_1': a log-probability, where logit_0 holds generated text`);
    writeFileSync(file, JSON.stringify([records[0], { ...records[1], logit_0: 'x', logit_1: 'y' }], null, 4));
    await assert.rejects(importSources([file], { skipBad: false, fields: {} }), (e: Error) => e.message === `${file}, line 15, field 'logit_0': generated text, where the file's first record holds a log-probability`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
