/**
 * Issue 15 part 2, "metrics that come from task code": truthfulqa_gen scores with its
 * process_results function; the matrix says its cells say nothing about those numbers and
 * which metrics it can and cannot read; a function's source never lands in a table cell.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.ts';
import { describeFunctionSource, functionName } from '../../src/util/pyFunctionSource.ts';

const TQA = 'fixtures/lmeval/pr3032-truthfulqa-gen';
const RESULTS = 'truthfulqa_gen_neo125_2025-05-31T14-30-51.983293.json';
const SAMPLES = 'samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl';
const METRICS = 'bleu_max, bleu_acc, bleu_diff, rouge1_max, rouge1_acc, rouge1_diff, rouge2_max, rouge2_acc, rouge2_diff, rougeL_max, rougeL_acc, rougeL_diff';

test('rescore: the note names the function, where it is recorded, and the metrics no cell reads', () => {
  const r = runCli(['rescore', TQA]);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(
    r.stdout.includes(
      '  note: truthfulqa_gen scores by its own code, its process_results function process_results_gen (source recorded in configs.truthfulqa_gen.process_results of the results file): ' +
        'the matrix reads answers against the gold with extractors and normalisers, not what that function computes, so its cells and spread say nothing about the reported numbers; ' +
        `of its metrics, none is one a matrix cell reads, and ${METRICS} come only from the function (rescore --extractors as-recorded re-reads the per-sample values it recorded)\n`,
    ),
    r.stdout,
  );
});

test('a task without process_results gets no such note', () => {
  assert.doesNotMatch(runCli(['rescore', 'fixtures/lmeval/bigrefactor-2023-06']).stdout, /scores by its own code/);
});

test('the recorded source is named, never shown: the report, and the diff of two versions of the function', () => {
  const source = JSON.parse(readFileSync(join(TQA, RESULTS), 'utf8')).configs.truthfulqa_gen.process_results as string;
  assert.equal(functionName(source), 'process_results_gen');
  assert.equal(describeFunctionSource(source), `function process_results_gen (${source.split('\n').filter((l) => l.trim() !== '').length} lines of task code, not shown)`);
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-code-'));
  copyFileSync(join(TQA, SAMPLES), join(dir, SAMPLES));
  const json = JSON.parse(readFileSync(join(TQA, RESULTS), 'utf8'));
  json.configs.truthfulqa_gen.process_results = source.replace('def process_results_gen(doc, results):\n', 'def process_results_gen(doc, results):\n    # edited\n');
  writeFileSync(join(dir, RESULTS), JSON.stringify(json, null, 2));
  const d = runCli(['diff', TQA, dir, '--iterations', '50']);
  assert.equal(d.status, 0, d.stderr);
  assert.match(d.stdout, /^configs\.process_results +differs +function process_results_gen \(\d+ lines of task code, not shown\) +function process_results_gen \(\d+ lines of task code, not shown\)/m);
  for (const format of ['md', 'html', 'tex']) {
    const r = runCli(['report', TQA, '--against', dir, '--format', format, '--iterations', '50']);
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /def process_results_gen|true_refs, false_refs/, format);
  }
  const md = runCli(['report', TQA, '--format', 'md']).stdout;
  assert.match(md, /\| truthfulqa\\_gen \| bleu\\_max,none 19\.68 ± 3\.923; .* \| the task scores by its own code \(process\\_results\): the readings say nothing about its numbers \(see the matrix note\) \|/);
});
