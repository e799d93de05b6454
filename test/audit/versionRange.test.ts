/**
 * lm-eval versions inferred from the file layout are ranges. Qwen2.5-7B's results-0.4.3 and results-0.4.8 folders
 * (fixtures/external, pr2809) both infer '0.4.3–0.4.9' and the harness version was "same"; lmaudit's own lm-eval
 * files infer '≥0.4.10' against lm-eval's recorded 0.4.13 and the falsifier said 'the harness version differs
 * ("0.4.13" vs "≥0.4.10")'. Neither can be told from the records.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { overlappingVersions, versionRange } from '../../src/audit/versionRange.ts';
import { diffSettings } from '../../src/audit/settingsDiff.ts';
import { emptyRunProvenance, inferred, recorded, same } from '../../src/store/schema.ts';
import { runCli } from '../helpers/cli.ts';
import { externalFixture, fixturePath } from '../helpers/fixtures.ts';

test('version ranges: equal or overlapping ranges are unknown, disjoint ones differ, single versions compare as recorded', () => {
  assert.deepEqual(versionRange('0.4.3–0.4.9'), { lo: [0, 4, 3], hi: [0, 4, 9], point: false });
  assert.deepEqual(versionRange('≥0.4.10'), { lo: [0, 4, 10], hi: null, point: false });
  assert.deepEqual(versionRange('0.4.13'), { lo: [0, 4, 13], hi: [0, 4, 13], point: true });
  assert.equal(versionRange('0.4.0.dev (2023 big-refactor branch)'), null);
  const v = (a: string, b: string, harnesses: [string, string] = ['lm-evaluation-harness', 'lm-evaluation-harness']) => {
    const side = (version: string, harness: string) => {
      const r = emptyRunProvenance({ run_id: version, label: version, source_kind: 'lm-eval', source_format: 'test' });
      r.harness.name = same(recorded(harness));
      r.harness.version = same(version.startsWith('=') ? recorded(version.slice(1)) : inferred(version, 'file layout'));
      return r;
    };
    return diffSettings(side(a, harnesses[0]), null, side(b, harnesses[1]), null).items.find((i) => i.item === 'harness')!.fields.find((f) => f.field === 'version')!.verdict;
  };
  assert.equal(v('0.4.3–0.4.9', '0.4.3–0.4.9'), 'unknown in both');
  assert.equal(v('=0.4.13', '≥0.4.10'), 'unknown in B');
  assert.equal(v('≤0.4.2', '=0.4.1'), 'unknown in A');
  // 0.4.8 lies in 0.4.7–0.4.9; 0.4.13 does not, nor does v0.3.x meet ≥0.4.10.
  assert.equal(v('0.4.7–0.4.9', '=0.4.8'), 'unknown in A');
  assert.equal(v('0.4.7–0.4.9', '=0.4.13'), 'differs');
  assert.equal(v('v0.3.x', '≥0.4.10'), 'differs');
  assert.equal(v('=0.4.13', '=0.4.13'), 'same');
  assert.equal(v('=0.4.12', '=0.4.13'), 'differs');
  assert.equal(overlappingVersions('0.4.3–0.4.6', '0.4.7–0.4.9'), null, 'disjoint: the plain comparison (differs) holds');
  // Two programs' versions do not compare: HELM 0.5.4 against lm-eval '≥0.4.10' stays as the plain comparison says.
  assert.equal(v('≥0.4.10', '=0.5.4', ['lm-evaluation-harness', 'helm']), 'differs');
});

test('CLI: two runs whose versions are both inferred 0.4.3–0.4.9 say so, not "same"', () => {
  const dir = externalFixture('lm-evaluation-harness/pr2809-qwen-versions/');
  const r = runCli(['diff', `${dir}results-0.4.3/Qwen__Qwen2.5-7B`, `${dir}results-0.4.8/qwen__qwen2.5-7B`, '--run-a', '21-17-00', '--run-b', '02-36-49', '--tasks', 'xwinograd_en']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /\n {2}version +unknown in both +"0\.4\.3–0\.4\.9" +"0\.4\.3–0\.4\.9" +partly recorded: each side's version is a range inferred from the file layout \(A 0\.4\.3–0\.4\.9, B 0\.4\.3–0\.4\.9\), and the ranges overlap: the two may be the same release or not\n/);
  const b = runCli(['diff', fixturePath('models/lmeval-reference/gpt2-tiny/extra'), fixturePath('paired-corpus/qwen3-tiny-lambada-rolling'), '--iterations', '10']);
  assert.equal(b.status, 0, b.stderr);
  assert.doesNotMatch(b.stdout, /the harness version differs/);
  assert.match(b.stdout, /harness +unknown +the harness version unknown in B; the harness commit unknown in both/);
});

test('one recorded commit settles overlapping version ranges', () => {
  // asdiv at batch size 8 vs 1 (fixtures/external pr2236): both '0.4.3–0.4.9', both at one git_hash.
  const dir = externalFixture('lm-evaluation-harness/pr2236-asdiv/');
  const r = runCli(['diff', `${dir}asdiv/meta-llama__Meta-Llama-3-8B-Instruct`, `${dir}asdiv_cot/meta-llama__Meta-Llama-3-8B-Instruct`, '--iterations', '10', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const harness = JSON.parse(r.stdout).comparisons[0].runSettings.items.find((i: { item: string }) => i.item === 'harness');
  const version = harness.fields.find((f: { field: string }) => f.field === 'version');
  const commit = harness.fields.find((f: { field: string }) => f.field === 'commit');
  assert.equal(commit.verdict, 'same');
  assert.deepEqual([version.verdict, version.evidence], ['same in effect', `the same harness commit (${commit.a.value}) in both runs`]);
});
