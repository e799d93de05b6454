import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadSource } from '../../../src/audit/source.ts';
import { rescoreInspectAsRecorded } from '../../../src/score/inspect/rescore.ts';
import { parsePythonJson } from '../../../src/util/json.ts';

const LOG = fileURLToPath(new URL('../../../fixtures/inspect/synthetic-modern.json', import.meta.url));
const NOT_EXPLAINED = /^not explained by a known rule change between 0\.3\.200 and 0\.3\.260/;

// The synthetic 0.3.260 log, said to be written by 0.3.200 (before the multiple_choice parse changes of 0.3.221–0.3.260),
// with three samples changed so that the stored choice() score and the rescore disagree for three different reasons.
test('an Inspect choice() difference names a parse-rule change only where one can change that completion, and an edited output as such', async () => {
  const log = parsePythonJson(await readFile(LOG, 'utf8')) as { eval: { packages: Record<string, string> }; samples: Record<string, any>[] };
  log.eval.packages.inspect_ai = '0.3.200';
  const sample = (id: string | number, epoch: number) => log.samples.find((s) => s.id === id && s.epoch === epoch)!;
  // 1/1: the output edited after scoring: the stored score (C, explanation 'ANSWER: B') describes another text.
  const edited = sample(1, 1);
  edited.output.completion = 'ANSWER: A';
  edited.output.choices[0].message.content[1].text = 'ANSWER: A';
  // 3/1: 'no idea' holds no ANSWER:, which every release parses as no selection; a stored C is not a rule change.
  sample(3, 1).scores.choice.value = 'C';
  // 2/1: 'ANSWER: a' — before 0.3.221 the lower-case letter was refused (I); 0.3.260 upper-cases it (C).
  sample(2, 1).scores.choice.value = 'I';
  // 4/1: match() 'ANSWER: C' against C, scored I: the 0.3.221 rewrite was of match(numeric=True), which this log's
  // match (no params) is not.
  sample(4, 1).scores.match.value = 'I';
  const file = join(await mkdtemp(join(tmpdir(), 'lmaudit-inspect-cause-')), 'log.json');
  await writeFile(file, JSON.stringify(log));
  const { store } = await loadSource([file], { skipBad: false, fields: {} });
  const choice = (await rescoreInspectAsRecorded(store)).find((c) => c.scorer === 'choice' && c.reducer === 'mean')!;
  const why = new Map(choice.samples.differences.map((d) => [`${d.doc_id}/${d.epoch}`, d.why]));
  assert.deepEqual([...why.keys()].sort(), ['1/1', '2/1', '3/1']);
  assert.match(why.get('1/1')!, /^the sample's output is not the completion its stored score was computed on/);
  assert.match(why.get('3/1')!, NOT_EXPLAINED);
  const match = (await rescoreInspectAsRecorded(store)).find((c) => c.scorer === 'match' && c.reducer === 'mean')!;
  const matchWhy = new Map(match.samples.differences.map((d) => [`${d.doc_id}/${d.epoch}`, d.why]));
  assert.match(matchWhy.get('4/1')!, NOT_EXPLAINED);
  assert.equal(
    why.get('2/1'),
    'log written by inspect_ai 0.3.200; multiple_choice parse: before 0.3.221 the answer was not upper-cased (a lower-case letter was refused) and " and " was removed, not read as a comma',
  );
});
