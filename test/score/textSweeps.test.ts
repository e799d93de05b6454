import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadSource } from '../../src/audit/source.ts';
import { computeMatrix } from '../../src/score/matrix.ts';
import { resolveNormalizer } from '../../src/score/registry.ts';

/** Python's verdicts per item and cell (fixtures/make_text_cases.py: lm-eval's regex filters, float(), SQuAD, exact_match). */
const expected = JSON.parse(readFileSync(new URL('./fixtures/text_cases.expected.json', import.meta.url), 'utf8')) as Record<
  'numbers' | 'free-text',
  Record<string, number[]>
>;

const SWEEPS = [
  { name: 'numbers', file: 'number_cases.jsonl', extractors: ['strict-number', 'first-number', 'last-number', 'exact'], normalizers: ['numeric', 'strip', 'none'] },
  {
    name: 'free-text',
    file: 'free_text_cases.jsonl',
    extractors: ['exact', 'contains'],
    normalizers: ['strip', 'lm-eval-exact-match', 'lm-eval-exact-match-numbers', 'squad', 'none'],
  },
] as const;

for (const sweep of SWEEPS) {
  // The JS definitions on every cell (per item), and the SQL forms on the cells that have one (counts).
  const runs = [
    { engine: 'js', normalizers: sweep.normalizers },
    { engine: 'sql', normalizers: sweep.normalizers.filter((n) => resolveNormalizer(n).sql !== undefined) },
  ] as const;
  for (const run of runs) {
    test(`the ${sweep.name} sweep (${run.engine} engine) gives Python's verdict on every item and cell`, async () => {
      const file = fileURLToPath(new URL(`./fixtures/${sweep.file}`, import.meta.url));
      const ids = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id);
      const { store } = await loadSource([file], { skipBad: false, fields: {} });
      const keepItems = run.engine === 'js';
      const [scope] = await computeMatrix(store, { extractors: [...sweep.extractors], normalizers: [...run.normalizers], engine: run.engine, keepItems });
      assert.equal(scope!.engine, run.engine);
      const want = expected[sweep.name];
      assert.equal(scope!.cellKeys.length, sweep.extractors.length * run.normalizers.length);
      scope!.cellKeys.forEach((key, k) => {
        const cell = `${key.extractor}/${key.normalizer}`;
        const values = want[cell]!;
        const micro = scope!.cells.find((c) => c.extractor === key.extractor && c.normalizer === key.normalizer && c.aggregation === 'micro')!;
        assert.equal(micro.correct, values.reduce((a, b) => a + b, 0), `${cell}: correct count`);
        assert.equal(micro.n, ids.length);
        if (keepItems) {
          const byId = new Map(scope!.items!.map((item) => [item.doc_id, item.values[k]]));
          const wrong = ids.filter((id, i) => byId.get(id) !== values[i]);
          assert.deepEqual(wrong.slice(0, 5), [], `${cell}: items that differ from Python`);
        }
      });
    });
  }
}

test('regex:<pattern>[:group] from the command line is lm-eval\'s regex filter: gsm8k\'s strict-match and flexible-extract patterns give the Python verdicts', async () => {
  const { runCli } = await import('../helpers/cli.ts');
  const file = fileURLToPath(new URL('./fixtures/number_cases.jsonl', import.meta.url));
  const strict = 'regex:#### (\\-?[0-9\\.\\,]+)';
  const flexibleLast = 'regex:(-?[$0-9.,]{2,})|(-?[0-9]+):-1';
  const r = runCli(['rescore', file, '--extractors', `${strict},${flexibleLast}`, '--normalizers', 'numeric,strip', '--aggregations', 'micro', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const cells = JSON.parse(r.stdout).cells as { extractor: string; normalizer: string; correct: number }[];
  const correct = (extractor: string, normalizer: string) => cells.find((c) => c.extractor === extractor && c.normalizer === normalizer)!.correct;
  const sum = (cell: string) => expected.numbers[cell]!.reduce((a, b) => a + b, 0);
  assert.equal(correct(strict, 'numeric'), sum('strict-number/numeric'));
  assert.equal(correct(strict, 'strip'), sum('strict-number/strip'));
  assert.equal(correct(flexibleLast, 'numeric'), sum('last-number/numeric'));
  assert.equal(correct(flexibleLast, 'strip'), sum('last-number/strip'));
});

test('--extractors splits on commas outside a pattern\'s brackets, parentheses and braces, and not on an escaped comma', async () => {
  const { splitSpecs } = await import('../../src/score/registry.ts');
  assert.deepEqual(splitSpecs('exact, contains'), ['exact', 'contains']);
  assert.deepEqual(splitSpecs('regex:#### (\\-?[0-9\\.\\,]+),exact'), ['regex:#### (\\-?[0-9\\.\\,]+)', 'exact']);
  assert.deepEqual(splitSpecs('regex:(-?[$0-9.,]{2,})|(-?[0-9]+):-1,last-letter'), ['regex:(-?[$0-9.,]{2,})|(-?[0-9]+):-1', 'last-letter']);
  assert.deepEqual(splitSpecs('regex:[],]x,exact'), ['regex:[],]x', 'exact']);
  assert.deepEqual(splitSpecs('regex:[^],]+,exact'), ['regex:[^],]+', 'exact']);
  assert.deepEqual(splitSpecs('regex:a\\,b,c'), ['regex:a\\,b', 'c']);
  assert.deepEqual(splitSpecs(' , exact ,, '), ['exact']);
});

test('with every list on the command line no sweep file is read; with one missing, the sweep files are read and a broken one is named', async () => {
  const { runCli } = await import('../helpers/cli.ts');
  const { mkdtemp, writeFile } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const audits = await mkdtemp(join(tmpdir(), 'lmaudit-audits-'));
  await writeFile(join(audits, 'sweep-letters.yaml'), 'answer_type: [unclosed\n');
  const file = fileURLToPath(new URL('./fixtures/number_cases.jsonl', import.meta.url));
  const env = { LMAUDIT_AUDITS_DIR: audits };
  const full = runCli(['rescore', file, '--extractors', 'strict-number', '--normalizers', 'numeric', '--aggregations', 'micro', '--json'], { env });
  assert.equal(full.status, 0, full.stderr);
  const sweep = JSON.parse(full.stdout).scopes[0].sweep;
  assert.deepEqual(
    { source: sweep.source, extractors: sweep.extractors, normalizers: sweep.normalizers, aggregations: sweep.aggregations },
    { source: 'command line', extractors: ['strict-number'], normalizers: ['numeric'], aggregations: ['micro'] },
  );
  const partial = runCli(['rescore', file, '--extractors', 'strict-number', '--normalizers', 'numeric', '--json'], { env });
  assert.equal(partial.status, 2);
  assert.match(partial.stderr, /sweep-letters\.yaml/);
  assert.match(partial.stderr, /malformed YAML/);
});

test('contains under numeric is not defined (a number does not contain another), so that cell is skipped with a note, never scored on the numbers\' text', async () => {
  const { runCli } = await import('../helpers/cli.ts');
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const file = join(mkdtempSync(join(tmpdir(), 'lmaudit-contains-')), 'n.jsonl');
  // "30" does not contain the number 3; under strip, the text '30' does contain '3'.
  writeFileSync(file, '{"id": 1, "output": "30", "gold": "3"}\n{"id": 2, "output": "3", "gold": "3"}\n');
  const r = runCli(['rescore', file, '--extractors', 'exact,contains', '--normalizers', 'strip,numeric', '--aggregations', 'micro', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.cells.map((c: { extractor: string; normalizer: string; correct: number }) => [c.extractor, c.normalizer, c.correct]), [
    ['exact', 'strip', 1],
    ['exact', 'numeric', 1],
    ['contains', 'strip', 2],
  ]);
  assert.ok(out.scopes[0].notes.includes('contains/numeric: not defined (numeric reads the whole output as one value, and one value does not contain another); skipped'));
  const only = runCli(['rescore', file, '--extractors', 'contains', '--normalizers', 'numeric', '--aggregations', 'micro']);
  assert.equal(only.status, 0, only.stderr);
  assert.match(only.stdout, /\n {2}no cell to compute \(the notes say why\)\n/);
});

test("the shipped sweeps are named by their place in the package, not by this machine's path (a report or a published view bundle shows it)", async () => {
  const { loadSweeps } = await import('../../src/score/sweeps.ts');
  const sources = [...(await loadSweeps()).values()].map((s) => s.source).sort();
  assert.deepEqual(sources, ['audits/sweep-free-text.yaml', 'audits/sweep-letters.yaml', 'audits/sweep-loglikelihood.yaml', 'audits/sweep-logprobs.yaml', 'audits/sweep-numbers.yaml']);
});
