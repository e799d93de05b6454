import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadSource } from '../../src/audit/source.ts';
import { computeMatrix } from '../../src/score/matrix.ts';
import { runCli } from '../helpers/cli.ts';

const records = fileURLToPath(new URL('./fixtures/letter_cases.jsonl', import.meta.url));
/** Python's own verdicts (fixtures/make_letter_cases.py): strip-equal, substring, first and last \b([A-D])\b. */
const expected = JSON.parse(readFileSync(new URL('./fixtures/letter_cases.expected.json', import.meta.url), 'utf8')) as Record<string, number | string>[];
const RULES = ['exact', 'contains', 'first-letter', 'last-letter'] as const;

/** A plain reference implementation of the four rules, written independently of src/. */
function reference(output: string, gold: string): Record<(typeof RULES)[number], number> {
  const ws = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;
  const strip = (s: string) => s.replace(ws, '');
  const found = [...output.matchAll(/(?<![\p{L}\p{N}_])([A-D])(?![\p{L}\p{N}_])/gu)].map((m) => m[1]);
  return {
    exact: strip(output) === strip(gold) ? 1 : 0,
    contains: strip(output).includes(strip(gold)) ? 1 : 0,
    'first-letter': found.length > 0 && found[0] === gold ? 1 : 0,
    'last-letter': found.length > 0 && found.at(-1) === gold ? 1 : 0,
  };
}

test('the reference implementation in this test agrees with Python on every item', () => {
  const lines = readFileSync(records, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { output: string; gold: string });
  lines.forEach((r, i) => {
    const mine = reference(r.output, r.gold);
    for (const rule of RULES) assert.equal(mine[rule], expected[i]![rule], `item ${i} rule ${rule}: ${JSON.stringify(r.output)}`);
  });
});

for (const engine of ['sql', 'js'] as const) {
  test(`the four-way letter sweep (${engine} engine) reproduces Python's counts exactly, per group and overall`, async () => {
    const { store } = await loadSource([records], { skipBad: false, fields: {} });
    const [scope] = await computeMatrix(store, { engine, flipsLimit: 5000 });
    assert.equal(scope!.answer_type, 'letters');
    assert.equal(scope!.engine, engine);
    for (const rule of RULES) {
      const micro = scope!.cells.find((c) => c.extractor === rule && c.aggregation === 'micro')!;
      const correct = expected.reduce((acc, e) => acc + Number(e[rule]), 0);
      assert.equal(micro.correct, correct, `${rule} micro`);
      assert.equal(micro.n, expected.length);
      const macro = scope!.cells.find((c) => c.extractor === rule && c.aggregation === 'macro')!;
      for (const g of macro.groups!) {
        const inGroup = expected.filter((_, i) => `g${i % 5}` === g.group);
        assert.equal(g.correct, inGroup.reduce((acc, e) => acc + Number(e[rule]), 0), `${rule} ${g.group}`);
      }
    }
    // Items that flip: those whose four verdicts are not all equal.
    const flips = expected.filter((e) => new Set(RULES.map((r) => e[r])).size > 1).map((e) => e.id);
    assert.equal(scope!.flips.count, flips.length);
    assert.deepEqual(scope!.flips.ids, flips);
  });
}

test('micro stderr is lm-eval mean_stderr and macro is the mean of group means', async () => {
  const { store } = await loadSource([records], { skipBad: false, fields: {} });
  const [scope] = await computeMatrix(store, {});
  const values = expected.map((e) => Number(e['contains']));
  const n = values.length;
  const mu = values.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mu) ** 2, 0) / (n - 1));
  const micro = scope!.cells.find((c) => c.extractor === 'contains' && c.aggregation === 'micro')!;
  assert.ok(Math.abs(micro.stderr! - sd / Math.sqrt(n)) < 1e-15);
  assert.ok(Math.abs(micro.ci95![0] - (mu - 1.959963984540054 * micro.stderr!)) < 1e-15);
  const macro = scope!.cells.find((c) => c.extractor === 'contains' && c.aggregation === 'macro')!;
  const groupMeans = [0, 1, 2, 3, 4].map((g) => {
    const vs = values.filter((_, i) => i % 5 === g);
    return vs.reduce((a, b) => a + b, 0) / vs.length;
  });
  assert.ok(Math.abs(macro.score! - groupMeans.reduce((a, b) => a + b, 0) / 5) < 1e-15);
  // numpy on letter_cases.expected.json's `contains` (groups i % 5: 83/609, 101/609, 88/608, 84/608, 80/608):
  // v.std(ddof=1) / sqrt(n) overall, and sqrt(sum(se_g ** 2)) / 5 over the groups' own v_g.std(ddof=1) / sqrt(n_g).
  assert.equal(micro.correct, 436);
  assert.equal(micro.score, 0.1433267587113741);
  assert.equal(micro.stderr, 0.0063542314613343285);
  assert.deepEqual(macro.groups!.map((g) => [g.group, g.n, g.correct]), [['g0', 609, 83], ['g1', 609, 101], ['g2', 608, 88], ['g3', 608, 84], ['g4', 608, 80]]);
  assert.equal(macro.score, 0.1433216662345519);
  assert.equal(macro.stderr, 0.006354483639745663);
  assert.deepEqual(macro.ci95, [0.1433216662345519 - 1.959963984540054 * 0.006354483639745663, 0.1433216662345519 + 1.959963984540054 * 0.006354483639745663]);
});

test('rescore --json from the CLI prints the matrix with spread, disagreement, flips and denominator', () => {
  const result = runCli(['rescore', records, '--json']);
  assert.equal(result.status, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.deepEqual(Object.keys(report).slice(0, 5), ['cells', 'spread', 'disagreement', 'flips', 'denominator']);
  assert.equal(report.cells.length, 8);
  for (const cell of report.cells) {
    for (const key of ['extractor', 'normalizer', 'aggregation', 'score', 'stderr', 'ci95', 'n', 'correct']) assert.ok(key in cell, key);
  }
  const exact = expected.reduce((a, e) => a + Number(e.exact), 0);
  const contains = expected.reduce((a, e) => a + Number(e.contains), 0);
  assert.equal(report.spread[0].lowest.score, exact / expected.length);
  assert.equal(report.spread[0].highest.score, contains / expected.length);
  const pair = report.disagreement.find((d: { a: string; b: string }) => d.a === 'exact/strip' && d.b === 'contains/strip');
  assert.equal(pair.count, expected.filter((e) => e.exact !== e.contains).length);
  assert.equal(report.denominator.items_read, expected.length);
});

test('--bootstrap reproduces a plain-Python seeded stratified bootstrap (fixtures/make_bootstrap_reference.py)', async () => {
  const reference = JSON.parse(readFileSync(new URL('./fixtures/bootstrap.expected.json', import.meta.url), 'utf8')) as {
    iterations: number;
    seed: number;
    cells: Record<string, Record<'micro' | 'macro', { stderr: number; ci95: [number, number] }>>;
  };
  const { store } = await loadSource([records], { skipBad: false, fields: {} });
  const [scope] = await computeMatrix(store, { bootstrap: reference.iterations, bootstrapSeed: reference.seed });
  for (const rule of RULES) {
    for (const aggregation of ['micro', 'macro'] as const) {
      const cell = scope!.cells.find((c) => c.extractor === rule && c.aggregation === aggregation)!;
      const want = reference.cells[rule]![aggregation];
      assert.ok(Math.abs(cell.bootstrap!.stderr! - want.stderr) < 1e-12, `${rule} ${aggregation} stderr`);
      assert.deepEqual(cell.bootstrap!.ci95, want.ci95, `${rule} ${aggregation} interval`);
    }
  }
});

test('rescore --out appends per-item readings to rescores/ with their provenance, never rewriting what was recorded', async () => {
  const { mkdtempSync, readdirSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { queryRows } = await import('../../src/util/duckdb.ts');
  const store = join(mkdtempSync(join(tmpdir(), 'lmaudit-out-')), 'store');
  assert.equal(runCli(['import', records, '--out', store]).status, 0);
  const before = readdirSync(store).sort();
  for (let i = 0; i < 2; i++) {
    const r = runCli(['rescore', store, '--out', '--extractors', 'exact,last-letter', '--normalizers', 'strip', '--json']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(JSON.parse(r.stdout).rescores_written, /rescores\/.*\.parquet$/);
  }
  const files = readdirSync(join(store, 'rescores'));
  assert.equal(files.length, 2);
  assert.deepEqual(readdirSync(store).sort(), before);
  const rows = await queryRows<{ n: number; correct: number }>(
    `SELECT count(*) AS n, sum(value) AS correct FROM read_parquet('${join(store, 'rescores', files[0]!)}') WHERE extractor = 'last-letter'`,
  );
  assert.deepEqual(rows[0], { n: expected.length, correct: expected.reduce((a, e) => a + Number(e['last-letter']), 0) });
  const meta = await queryRows<{ value: string }>(
    `SELECT decode(value) AS value FROM parquet_kv_metadata('${join(store, 'rescores', files[0]!)}') WHERE decode(key) = 'lmaudit_rescore'`,
  );
  assert.equal(JSON.parse(meta[0]!.value).created_by, 'lmaudit rescore');
  // The store still opens and rescores as before.
  assert.equal(runCli(['rescore', store, '--json']).status, 0);
  // --out needs a store: a file imported on the fly has none to append to.
  assert.equal(runCli(['rescore', records, '--out']).status, 2);
});

test('the SQL forms of the letter rules agree with their JS definitions for any gold, letter set and normaliser, from a store and on the fly', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  // The adversarial outputs again, now against golds that are not a bare capital letter of the set.
  const golds = ['A', 'a', ' B\n', 'E', 'AB', 'b', '\u00a0C', 'D.', '_', 'é'];
  const lines = readFileSync(records, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id: string; output: string; subject: string });
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-letters-'));
  const file = join(dir, 'golds.jsonl');
  writeFileSync(file, lines.map((r, i) => JSON.stringify({ ...r, gold: golds[i % golds.length] })).join('\n') + '\n');
  // The same outputs after 4,096 plain ASCII ones: the engine samples the first outputs to choose
  // the letters' Unicode SQL forms (adversarial first) or their plain forms with the JS definitions
  // for the rows that need them (ASCII first). Both must agree with JS.
  const plainFirst = join(dir, 'plain-first.jsonl');
  const ascii = Array.from({ length: 4096 }, (_, i) => JSON.stringify({ id: `p${i}`, output: ['The answer is B.', 'A', 'I pick (C)', 'D or A?'][i % 4], gold: 'ABCD'[i % 4], subject: `g${i % 5}` }));
  writeFileSync(plainFirst, [...ascii, ...lines.map((r, i) => JSON.stringify({ ...r, gold: golds[i % golds.length] }))].join('\n') + '\n');
  const store = join(dir, 'store');
  assert.equal(runCli(['import', file, '--out', store]).status, 0);
  const spec = { extractors: ['first-letter:ABCDE', 'last-letter:ABCDabcd', 'first-letter', 'last-letter'], normalizers: ['none', 'strip'], flipsLimit: 5000 };
  for (const source of [store, file, plainFirst]) {
    const { store: opened } = await loadSource([source], { skipBad: false, fields: {} });
    const [sql] = await computeMatrix(opened, { ...spec, engine: 'sql' });
    const [js] = await computeMatrix(opened, { ...spec, engine: 'js' });
    assert.equal(sql!.engine, 'sql');
    assert.equal(js!.engine, 'js');
    const counts = (s: typeof sql) => s!.cells.map((c) => [c.extractor, c.normalizer, c.aggregation, c.correct, c.n, c.groups?.map((g) => g.correct)]);
    assert.deepEqual(counts(sql), counts(js), source);
    assert.deepEqual(sql!.flips, js!.flips, source);
    assert.deepEqual(sql!.disagreement, js!.disagreement, source);
    // Not a vacuous agreement: the golds make the cells differ.
    assert.ok(new Set(sql!.cells.map((c) => c.correct)).size > 4);
  }
});

test('a sweep whose readers all fit another answer type still reads the items: no cells, the reason, the denominator', () => {
  const result = runCli(['rescore', records, '--extractors', 'acc', '--json']);
  assert.equal(result.status, 0, result.stderr);
  const report = JSON.parse(result.stdout);
  assert.deepEqual(report.cells, []);
  assert.equal(report.denominator.items_read, expected.length);
  assert.ok(report.scopes[0].notes.some((n: string) => /^acc: not applicable to letters items/.test(n)), JSON.stringify(report.scopes[0].notes));
});

test('rescore --out writes every item under every cell, however many (the rows stream into the store while the scoring query runs)', async () => {
  const { mkdtempSync, writeFileSync, readdirSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { queryRows } = await import('../../src/util/duckdb.ts');
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-out-many-'));
  const file = join(dir, 'many.jsonl');
  // 70,000 items × 3 cells: more rows than a DuckDB appender holds before it flushes on its own (204,800).
  const n = 70_000;
  const lines: string[] = [];
  for (let i = 0; i < n; i++) lines.push(JSON.stringify({ id: `q${i}`, output: i % 3 === 0 ? 'The answer is B.' : `(A) or (C)? ${i}`, gold: 'ABCD'[i % 4] }));
  writeFileSync(file, lines.join('\n') + '\n');
  const store = join(dir, 'store');
  assert.equal(runCli(['import', file, '--out', store]).status, 0);
  const r = runCli(['rescore', store, '--out', '--extractors', 'exact,first-letter,last-letter', '--normalizers', 'strip', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const cells = JSON.parse(r.stdout).cells as { extractor: string; aggregation: string; correct: number }[];
  const [written] = readdirSync(join(store, 'rescores'));
  const rows = await queryRows<{ extractor: string; n: number; docs: number; correct: number }>(
    `SELECT extractor, count(*) AS n, count(DISTINCT doc_id) AS docs, sum(value) AS correct FROM read_parquet('${join(store, 'rescores', written!)}') GROUP BY extractor ORDER BY extractor`,
  );
  assert.deepEqual(
    rows.map((row) => [row.extractor, row.n, row.docs, row.correct]),
    ['exact', 'first-letter', 'last-letter'].map((e) => [e, n, n, cells.find((c) => c.extractor === e && c.aggregation === 'micro')!.correct]),
  );
});

test('letters next to non-ASCII characters are read in SQL exactly as Python reads them (odd runs of letters, CJK, emoji, combining marks)', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const texts = ['AAB 😀B\u3000x', 'AAAB é C', '中A B', 'A中 B', 'ABC D中', '٣B C', 'B٣ C', 'x AAA B é', 'é B é', '😀A😀', 'A\u0301 B', 'C—D—', '答案是A。', '答案：B', 'ÀB C', 'AB_ C é'];
  const file = join(mkdtempSync(join(tmpdir(), 'lmaudit-uletters-')), 'u.jsonl');
  const rows = texts.flatMap((output, i) => 'ABCD'.split('').map((gold) => JSON.stringify({ id: `u${i}${gold}`, output, gold })));
  writeFileSync(file, rows.join('\n') + '\n');
  const { store } = await loadSource([file], { skipBad: false, fields: {} });
  const spec = { extractors: ['first-letter', 'last-letter', 'first-letter:ABCDabcd'], normalizers: ['none'], flipsLimit: 100 };
  const [sql] = await computeMatrix(store, { ...spec, engine: 'sql' });
  const [js] = await computeMatrix(store, { ...spec, engine: 'js' });
  assert.equal(sql!.engine, 'sql');
  const counts = (s: typeof sql) => s!.cells.map((c) => [c.extractor, c.aggregation, c.correct]);
  assert.deepEqual(counts(sql), counts(js));
  assert.deepEqual(sql!.flips, js!.flips);
  // Python 3.11, re.findall(r'\b([A-D])\b', t) for each text: B C B B - C C B B A A,B C,D - B C C ('D' before 中 and
  // 'A' after 是 touch word characters; '：' and the combining accent are not). Each text has one gold per letter,
  // so first-letter is correct once for each text with a standalone letter.
  const firstPython = [1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1].reduce((a, b) => a + b, 0);
  assert.equal(js!.cells.find((c) => c.extractor === 'first-letter' && c.aggregation === 'micro')!.correct, firstPython);
});

test('a task none of whose items has a usable gold prints one line saying so, not a table of n/a cells', () => {
  // lm-eval's truthfulqa_gen records the target " " (the task scores against the document's reference answers).
  const r = runCli(['rescore', fileURLToPath(new URL('../../fixtures/lmeval/pr3032-truthfulqa-gen', import.meta.url))]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.stdout.trimEnd().split('\n').slice(1), [
    '  nothing to score: 12 cell(s) over 0 items',
    '  denominator: 0 scored of 20 read; 0 without a response (scored as empty); 20 without gold (excluded)',
    // The task scores by its own process_results (issue 15): the matrix says its cells cannot speak for its numbers.
    '  note: truthfulqa_gen scores by its own code, its process_results function process_results_gen (source recorded in configs.truthfulqa_gen.process_results of the results file): the matrix reads answers against the gold with extractors and normalisers, not what that function computes, so its cells and spread say nothing about the reported numbers; of its metrics, none is one a matrix cell reads, and bleu_max, bleu_acc, bleu_diff, rouge1_max, rouge1_acc, rouge1_diff, rouge2_max, rouge2_acc, rouge2_diff, rougeL_max, rougeL_acc, rougeL_diff come only from the function (rescore --extractors as-recorded re-reads the per-sample values it recorded)',
    '  note: 20 item(s) have no usable gold (none, or only whitespace: the task scores them some other way, e.g. against reference answers in the document)',
  ]);
});

test('a standard error that cannot be computed says why: one item overall, or a group of one under macro', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const folder = mkdtempSync(join(tmpdir(), 'lmaudit-stderr-'));
  const two = join(folder, 'groups.jsonl');
  writeFileSync(two, '{"id":1,"output":"A","gold":"A","subject":"x"}\n{"id":2,"output":"B","gold":"A","subject":"x"}\n{"id":3,"output":"A","gold":"A","subject":"y"}\n');
  const r = runCli(['rescore', two, '--extractors', 'exact', '--normalizers', 'none', '--aggregations', 'micro,macro', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const [micro, macro] = JSON.parse(r.stdout).cells;
  // micro: values 1, 0, 1: sample std sqrt(1/3) over sqrt(3) = 1/3.
  assert.ok(Math.abs(micro.stderr - 1 / 3) < 1e-15);
  assert.equal(macro.score, 0.75);
  assert.equal(macro.stderr, null);
  assert.equal(macro.stderr_method, 'not computable: 1 group(s) hold a single item, which has no sample standard deviation');
  const one = join(folder, 'one.jsonl');
  writeFileSync(one, '{"id":1,"output":"A","gold":"A"}\n');
  const single = JSON.parse(runCli(['rescore', one, '--extractors', 'exact', '--normalizers', 'none', '--aggregations', 'micro', '--json']).stdout).cells[0];
  assert.equal(single.stderr, null);
  assert.equal(single.stderr_method, 'not computable: 1 item(s), and a sample standard deviation needs two');
});

test('golds read from a store (dictionary-encoded, stripped once per distinct gold) score as the same golds read flat, and as the JS definitions', async () => {
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { openStore } = await import('../../src/store/readStore.ts');
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-golds-'));
  // The fixture's items with golds that carry white space at their ends (' A', 'B\n', '\tC ', …).
  const pads = [['', ''], [' ', ''], ['', '\n'], ['\t', ' '], ['\u000b', '\u001f'], ['\u00a0', '']];
  const padded = readFileSync(records, 'utf8').split('\n').filter(Boolean).map((l, i) => {
    const r = JSON.parse(l) as { gold: string };
    const [before, after] = pads[i % pads.length]!;
    return JSON.stringify({ ...r, gold: `${before}${r.gold}${after}` });
  });
  const file = join(dir, 'padded.jsonl');
  writeFileSync(file, `${padded.join('\n')}\n`);
  const storeDir = join(dir, 'store');
  assert.equal(runCli(['import', file, '--out', storeDir]).status, 0);
  const stored = await openStore(storeDir);
  assert.equal(await stored.dictionaryEncoded!('instances', 'target'), true);
  const spec = { extractors: ['exact', 'contains', 'first-letter', 'last-letter'], normalizers: ['strip', 'none'], aggregations: ['micro' as const], flipsLimit: 5000 };
  const cells = (scopes: Awaited<ReturnType<typeof computeMatrix>>) => scopes[0]!.cells.map((c) => [c.extractor, c.normalizer, c.correct, c.n]);
  const fromStore = await computeMatrix(stored, { ...spec, engine: 'sql' });
  const flat = await computeMatrix((await loadSource([file], { skipBad: false, fields: {} })).store, { ...spec, engine: 'sql' });
  const js = await computeMatrix(stored, { ...spec, engine: 'js' });
  assert.equal(fromStore[0]!.engine, 'sql');
  assert.deepEqual(cells(fromStore), cells(js));
  assert.deepEqual(cells(flat), cells(js));
  assert.deepEqual(fromStore[0]!.flips, js[0]!.flips);
  // The padding matters: read raw, the padded golds match fewer outputs exactly than stripped.
  const exact = (normalizer: string) => fromStore[0]!.cells.find((c) => c.extractor === 'exact' && c.normalizer === normalizer)!.correct;
  assert.ok(exact('none')! < exact('strip')!, `${exact('none')} < ${exact('strip')}`);
});
