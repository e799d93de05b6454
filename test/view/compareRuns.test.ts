/**
 * The compare page's answers on HELM's run against EEE's conversion of it (the fixtures test/audit/
 * helmVsEeeConversion.test.ts diffs): a log-probability only HELM recorded is no differing response here either
 * (the page listed all ten equal " D" answers under "responses differ"), and runs picked in the address are not
 * said to be "chosen with --run-a/--run-b", a flag of the CLI.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { decodedFixture, fixturePath } from '../helpers/fixtures.ts';
import { ViewApi } from '../../src/view/api.ts';
import { ViewSession } from '../../src/view/sources.ts';

const HELM = join(decodedFixture('helm'), 'evaleval-every_eval_ever/tests/data/helm/mmlu:subject=philosophy,method=multiple_choice_joint,model=openai_gpt2');
const EEE = fixturePath('eee/instance-0.2.1-helm-converter/None/mmlu/openai/gpt2/None_samples.jsonl');

test('compare: ten equal answers, one side with log-probabilities, differ in no response; runs picked in the address say so', async () => {
  const api = new ViewApi(await ViewSession.open([HELM, EEE], { skipBad: false, fields: {} }));
  const page = (filter: string) => api.answer('compare/items', new URLSearchParams({ a: '0', b: '1', filter })) as Promise<{ matching: number; rows: { responseDiffers: boolean }[] }>;
  const all = await page('all');
  assert.equal(all.matching, 10);
  assert.deepEqual(all.rows.map((r) => r.responseDiffers), new Array(10).fill(false));
  assert.equal((await page('response')).matching, 0);
  const compare = (await api.answer('compare', new URLSearchParams({ a: '0', b: '1' }))) as { diff: { comparisons: { a: { run_id: string }; b: { run_id: string } }[] } };
  const [{ a, b }] = compare.diff.comparisons;
  const picked = (await api.answer('compare', new URLSearchParams({ a: '0', b: '1', ra: a!.run_id, rb: b!.run_id }))) as { diff: { comparisons: { pairedBecause: string }[] } };
  assert.match(picked.diff.comparisons[0]!.pairedBecause, /^chosen with the address's ra\/rb parameters; /);
  assert.doesNotMatch(picked.diff.comparisons[0]!.pairedBecause, /--run-a/);
});
