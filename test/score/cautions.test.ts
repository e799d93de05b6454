/** Issue 28 §7: statistics that say when they mean little. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSource } from '../../src/audit/source.ts';
import { computeMatrix } from '../../src/score/matrix.ts';
import { formatP, pairedComparison } from '../../src/audit/pairedStats.ts';
import { runCli } from '../helpers/cli.ts';
import { externalFixture, fixturePath } from '../helpers/fixtures.ts';

test('a spread over one item (Inspect mmlu-summary-choices.eval: 0 to 100 points) is flagged, in the result and the printed line', async () => {
  const file = externalFixture('inspect/mmlu-summary-choices.eval');
  const { store } = await loadSource([file], { skipBad: false, fields: {} });
  const [scope] = await computeMatrix(store, {});
  assert.equal(scope!.denominator.items_scored, 1);
  assert.equal(scope!.spread.difference, 1);
  assert.match(scope!.spread.caution!, /^n = 1: every cell is 0 or 1 on the one item, so this spread \(and any interval or bootstrap on it\) says nothing beyond that item$/);
  const r = runCli(['rescore', file]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /spread: 0\.0000 \(inspect-choice\/none\/micro\) to 1\.0000 \(contains\/none\/micro\): 100\.00 points — n = 1: /);
});

test('contains against golds of one or two characters is flagged, with how many outputs hold the gold only inside a longer token', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-short-'));
  try {
    const file = join(dir, 'short.jsonl');
    // By hand: golds '5', '10', '5', '42' are one or two characters ('350' is not). '$2.5' holds 5 only inside 2.5,
    // '1000 dollars' holds 10 only inside 1000: 2 coincidences. 'The answer is 5.' holds it alone; 'forty-two' not at all.
    const rows = [
      { id: '1', output: 'It costs $2.5', gold: '5' },
      { id: '2', output: '1000 dollars', gold: '10' },
      { id: '3', output: 'The answer is 5.', gold: '5' },
      { id: '4', output: 'forty-two', gold: '42' },
      { id: '5', output: 'the total is 350 dollars', gold: '350' },
    ];
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { store } = await loadSource([file], { skipBad: false, fields: {} });
    const [scope] = await computeMatrix(store, { extractors: ['contains'], normalizers: ['strip'], aggregations: ['micro'] });
    assert.equal(scope!.cells[0]!.correct, 4);
    const note = scope!.notes.find((n) => n.startsWith('contains:'));
    assert.match(note!, /^contains: 4 item\(s\) have a gold of one or two characters, .* in 2 of them the output holds the gold only inside a longer token \(e\.g\. gold "(5|10)" inside /);
    // Without contains in the sweep there is nothing to flag.
    const [exact] = await computeMatrix(store, { extractors: ['exact'], normalizers: ['strip'], aggregations: ['micro'] });
    assert.equal(exact!.notes.some((n) => n.startsWith('contains:')), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A JSONL file of generic records in a temporary folder, loaded as a store; the folder is removed after `use`. */
async function withRecords(rows: object[], use: (store: Awaited<ReturnType<typeof loadSource>>['store']) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-short-'));
  try {
    const file = join(dir, 'short.jsonl');
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const { store } = await loadSource([file], { skipBad: false, fields: {} });
    await use(store);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const LEAD = "item(s) have a gold of one or two characters, which contains finds inside longer numbers and words ('5' in '$2.5', '10' in '1000 dollars')";
const containsNote = async (store: Parameters<typeof computeMatrix>[0], engine: 'sql' | 'js') => {
  const [scope] = await computeMatrix(store, { extractors: ['contains'], normalizers: ['strip'], aggregations: ['micro'], engine });
  assert.equal(scope!.engine, engine);
  return scope!.notes.find((n) => n.startsWith('contains:'));
};
/** Each engine's scoring pass gives these records `expected` as contains' note (undefined: none). */
const assertContainsNote = (rows: object[], expected: string | undefined) =>
  withRecords(rows, async (store) => {
    for (const engine of ['sql', 'js'] as const) assert.equal(await containsNote(store, engine), expected, engine);
  });

test('the short-gold caution counts the same in the pass of either engine, past 256 distinct short golds too', async () => {
  // By hand: 300 items, each a distinct two-letter gold ('aa', 'ab', …: past the 256 written as constants). Every
  // third output holds its gold only inside a longer word ('the aax word'), the next one alone ('answer: ab.'), the
  // next not at all (digits): 300 short golds, 100 inside. The example is the least (gold, output) in byte order: 'aa'.
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  const rows = Array.from({ length: 300 }, (_, i) => {
    const gold = letters[Math.floor(i / 26)]! + letters[i % 26]!;
    const output = i % 3 === 0 ? `the ${gold}x word` : i % 3 === 1 ? `answer: ${gold}.` : '12345';
    return { id: String(i), output, gold };
  });
  await assertContainsNote(
    rows,
    `contains: 300 ${LEAD}; in 100 of them the output holds the gold only inside a longer token (e.g. gold "aa" inside "the aax word"), so contains counts them correct on a coincidence`,
  );
});

test("the short-gold caution's example is the least in UTF-8 byte order across the pass's groups, as DuckDB orders text", async () => {
  // U+FF15 (UTF-8 EF BC 95) sorts before U+1F600 (F0 9F 98 80) by bytes and by code point, after it by UTF-16 code
  // unit (FF15 > D83D): each is inside a word here ('x５y', 'a😀b'), in two groups, so two rows of the pass hold one each.
  const rows = [
    { id: '1', output: 'a😀b', gold: '😀', subject: 'one' },
    { id: '2', output: 'x５y', gold: '５', subject: 'two' },
    { id: '3', output: 'plain', gold: 'B', subject: 'one' },
  ];
  await assertContainsNote(
    rows,
    `contains: 3 ${LEAD}; in 2 of them the output holds the gold only inside a longer token (e.g. gold "５" inside "x５y"), so contains counts them correct on a coincidence`,
  );
});

test("a gold followed by '.' or ',' and a digit is inside a longer number; followed by the sentence's punctuation it stands alone", async () => {
  // By hand: '5' in '5.25' and in '5,000' only inside a longer number (2 coincidences); 'is 5, clearly' and 'is 5.' hold it
  // alone. Before the fix any '.' or ',' after a gold counted as standing alone: 'here no output holds…'.
  await assertContainsNote(
    [
      { id: '1', output: 'It is 5.25', gold: '5' },
      { id: '2', output: '5,000 people', gold: '5' },
      { id: '3', output: 'The answer is 5, clearly', gold: '5' },
      { id: '4', output: 'The answer is 5.', gold: '5' },
    ],
    `contains: 4 ${LEAD}; in 2 of them the output holds the gold only inside a longer token (e.g. gold "5" inside "5,000 people"), so contains counts them correct on a coincidence`,
  );
});

test("a worked solution ending in '#### N' is a short gold when N is (contains compares N, as lm-eval's gsm8k does)", async () => {
  // By hand: the golds are GSM8K-style solutions; their answers '5', '18' and '72' are short, '350' is not. '$2.5'
  // holds 5 only inside 2.5, 'The answer is 18.' holds 18 alone, '1720 apples' holds 72 only inside 1720: three short
  // golds, two coincidences. The example is the least (gold, output) in byte order: gold "5" before "72".
  const solution = (steps: string, n: string) => `${steps}\n#### ${n}`;
  await assertContainsNote(
    [
      { id: '1', output: 'It costs $2.5', gold: solution('Half of 10 is <<10/2=5>>5.', '5') },
      { id: '2', output: 'The answer is 18.', gold: solution('9 * 2 = <<9*2=18>>18', '18') },
      { id: '3', output: '1720 apples', gold: solution('8 * 9 = <<8*9=72>>72', '72') },
      { id: '4', output: 'the total is 350 dollars', gold: solution('350 in all', '350') },
    ],
    `contains: 3 ${LEAD}; in 2 of them the output holds the gold only inside a longer token (e.g. gold "5" inside "It costs $2.5"), so contains counts them correct on a coincidence`,
  );
  // 300 distinct solutions (past the 256 golds written as constants) that end in four answers: merged by answer.
  const rows = Array.from({ length: 300 }, (_, i) => ({ id: String(i), output: i % 2 === 0 ? `about ${i % 4}0 of them` : `${i % 4}`, gold: solution(`step ${i}`, String(i % 4)) }));
  // By hand: golds '0'..'3', all short; even i: output 'about 00 of them' (i%4=0) or 'about 20 of them' (i%4=2), which
  // hold 0 and 2 only inside '00' and '20': 150 coincidences; odd i: the answer alone.
  await assertContainsNote(
    rows,
    `contains: 300 ${LEAD}; in 150 of them the output holds the gold only inside a longer token (e.g. gold "0" inside "about 00 of them"), so contains counts them correct on a coincidence`,
  );
});

test("the short-gold caution's example quotes the output where its gold sits, not the output's first 60 characters", async () => {
  // EEE's Inspect converter input data_arc_qwen.json (arc_easy, Qwen): gold 'B' is only in 'Breathing', at character
  // 516 of sample 2's output, and gold 'D' only in 'During' (sample 3). Python, on the log's outputs:
  //   i = text.find(gold); text[max(0, i - 20):max(0, i - 20) + 60]
  // gives " not be equipped.\n- Breathing mask is specifically designed " for 'B', the least example. Before the fix the
  // note quoted the first 60 characters, "ANSWER:D\n\nAnswer: D\n\nExplanation:\n\nSafety gear, including br", which
  // hold no 'B': the sentence said the gold was inside a text that does not hold it.
  const { store } = await loadSource([fixturePath('eee/converter-inputs/inspect/data_arc_qwen.json')], { skipBad: false, fields: {} });
  const [scope] = await computeMatrix(store, { extractors: ['contains'], normalizers: ['strip'], aggregations: ['micro'] });
  assert.equal(scope!.cells[0]!.correct, 3);
  assert.equal(
    scope!.notes.find((n) => n.startsWith('contains:')),
    `contains: 3 ${LEAD}; in 2 of them the output holds the gold only inside a longer token (e.g. gold "B" inside " not be equipped.\\n- Breathing mask is specifically designed "), so contains counts them correct on a coincidence`,
  );
});

test('no short gold, no caution, in either engine', async () => {
  await assertContainsNote([{ id: '1', output: 'the answer is 350', gold: '350' }, { id: '2', output: 'no', gold: ' ' }], undefined);
});

test('a p-value below what a double can show prints as < 1e-300, never 0.00e+0', () => {
  // McNemar exact on 0 vs 1100 discordant items: p = 2 · 2^-1100 = 2^-1099 ≈ 1.5e-331, below the smallest double (≈ 4.9e-324).
  const a = Array.from({ length: 1100 }, () => 0);
  const b = Array.from({ length: 1100 }, () => 1);
  const result = pairedComparison(a, b, { iterations: 10 });
  assert.equal(result.mcnemar!.p, 0);
  assert.match(result.sentence, /McNemar exact p < 1e-300 on 1100 discordant item\(s\)/);
  assert.doesNotMatch(result.sentence, /0\.00e\+0/);
  assert.equal(formatP(0), '< 1e-300');
  assert.equal(formatP(5e-324), '< 1e-300');
  assert.equal(formatP(2e-300), '2.00e-300');
  assert.equal(formatP(0.0312), '0.0312');
});
