import { test } from 'node:test';
import assert from 'node:assert/strict';
import { displayWidth, fmt, table } from '../../src/report/textTable.ts';
import { formatTable } from '../../src/cli/output.ts';

test('display width: East Asian Wide and Fullwidth 2, combining marks 0, emoji shown as emoji 2 per cluster', () => {
  // Hand count, one column per character unless said.
  assert.equal(displayWidth('contains/strip'), 14);
  assert.equal(displayWidth('日本語'), 6); // CJK ideographs: W
  assert.equal(displayWidth('한국어'), 6); // Hangul syllables: W
  assert.equal(displayWidth('ｆｕｌｌ'), 8); // Fullwidth Latin: F
  assert.equal(displayWidth('ｶﾅ'), 2); // Halfwidth katakana: H, narrow
  assert.equal(displayWidth('e\u0301'), 1); // e + COMBINING ACUTE ACCENT (Mn)
  assert.equal(displayWidth('\u0301'), 0);
  assert.equal(displayWidth('Ä\u200b'), 1); // ZERO WIDTH SPACE (Cf)
  assert.equal(displayWidth('👍'), 2); // Emoji_Presentation
  assert.equal(displayWidth('👍🏽'), 2); // with a skin-tone modifier: one cluster
  assert.equal(displayWidth('👨\u200d👩\u200d👧'), 2); // ZWJ family: one glyph
  assert.equal(displayWidth('🇯🇵'), 2); // a flag: two regional indicators, one cluster
  assert.equal(displayWidth('\u2764\ufe0f'), 2); // HEAVY BLACK HEART + VS16: emoji presentation
  assert.equal(displayWidth('\u2764'), 1); // text presentation by default
  assert.equal(displayWidth('…—é'), 3); // Ambiguous and narrow: 1 each
});

test('text tables pad by display width, so CJK text and emoji stay in their columns', () => {
  const lines = table(['name', 'n'], [['日本語', 3], ['abc', 12], ['👍', 1]]);
  // Column 1 is 6 wide (日本語 is 6 columns), column 2 is 2 wide; numbers right-aligned.
  assert.deepEqual(lines, ['name    n', '------  --', '日本語   3', 'abc     12', `👍${' '.repeat(7)}1`]);
  for (const line of lines.slice(2)) assert.equal(displayWidth(line), 10);
  assert.deepEqual(formatTable(['a', 'b'], [['e\u0301x', 'y']]), ['a   b', '--  -', 'e\u0301x  y']);
});

test('fmt: four significant digits, but never zeros in place of a whole part\'s digits', () => {
  // lm-eval's results for gpt2-tiny lambada_openai (fixtures/models/lmeval-reference/gpt2-tiny/plain): perplexity
  // 312507.8156718002 ± 680597.3957931048 printed as "312500 ± 680600".
  assert.equal(fmt(312507.8156718002), '312508');
  assert.equal(fmt(680597.3957931048), '680597');
  assert.equal(fmt(20724599337.5), '20724599338');
  assert.equal(fmt(-1234.56), '-1235');
  assert.equal(fmt(999.96), '1000');
  assert.equal(fmt(12.65238), '12.65');
  assert.equal(fmt(0.08191780219091252), '0.08192');
  assert.equal(fmt(20), '20');
});
