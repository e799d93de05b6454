/**
 * The Python-regex translator against CPython on 1,460 random patterns (each on three random
 * texts, from test/util/fixtures/make_python_regex_cases.py): every pattern is either translated
 * with exactly re.findall's results, or refused as untranslatable — never a different match.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compilePython } from '../../src/py/re.ts';
import { findall, subEmpty } from '../../src/py/reMatch.ts';
import { UnsupportedError } from '../../src/errors.ts';

interface Case {
  pattern: string;
  cases: { text: string; findall: (string | string[])[] }[];
}
const corpus = JSON.parse(readFileSync(new URL('./fixtures/python_regex_cases.json', import.meta.url), 'utf8')) as Case[];

test('random Python patterns: translated with re.findall\'s results on every text, or refused as untranslatable', () => {
  let translated = 0;
  for (const c of corpus) {
    let pattern;
    try {
      pattern = compilePython(c.pattern);
    } catch (error) {
      // Python compiled every one of them: a refusal must say it is a translation gap, not bad input.
      assert.ok(error instanceof UnsupportedError, `${c.pattern}: ${(error as Error).message}`);
      continue;
    }
    translated++;
    for (const t of c.cases) assert.deepEqual(findall(pattern, t.text), t.findall, `${JSON.stringify(c.pattern)} on ${JSON.stringify(t.text)}`);
  }
  // The corpus leans on nested repeats; most of it must still translate.
  assert.ok(translated >= 0.85 * corpus.length, `${translated} of ${corpus.length} translated`);
});

test('Python 3.7+ iteration: a non-empty match may start where an empty one did (findall and sub)', () => {
  // re.findall(r'\d??', 'a9٣') == ['', '', '9', '', '٣', '']; re.sub(r'\d??', '', 'a9٣') == 'a'.
  assert.deepEqual(findall(compilePython('\\d??'), 'a9٣'), ['', '', '9', '', '٣', '']);
  assert.equal(subEmpty(compilePython('\\d??'), 'a9٣'), 'a');
  // re.findall('x*', 'axxb') == ['', 'xx', '', ''] (an empty match right after a non-empty one).
  assert.deepEqual(findall(compilePython('x*'), 'axxb'), ['', 'xx', '', '']);
  // A character outside the BMP is one position: re.findall('[^a]??', '😀') == ['', '😀', ''].
  assert.deepEqual(findall(compilePython('[^a]??'), '😀'), ['', '😀', '']);
});

test('\\B never matches an empty string (Python 3.11), and repeats that JavaScript reads otherwise are refused', () => {
  // re.findall(r'\B', '') == []; re.findall(r'\B', 'ab') == [''].
  assert.deepEqual(findall(compilePython('\\B'), ''), []);
  assert.deepEqual(findall(compilePython('\\B'), 'ab'), ['']);
  // re.findall(r'(?:[^a]??){1,3}', ' ') == ['', ' ', '']; JS repeats an empty iteration otherwise.
  // re.search(r'(?:(a)|b)+', 'ab').group(1) == 'a'; JS forgets the group on the second repeat.
  for (const pattern of ['(?:[^a]??){1,3}', '(a?)*', '(?:(a)|b)+', '(?:x(y)?)*z']) {
    assert.throws(() => compilePython(pattern), (e: unknown) => e instanceof UnsupportedError && e.message.includes(JSON.stringify(pattern)), pattern);
  }
  // Still translated: a group repeated at most once, a capture that is the repeated group itself, a lazy-free group that cannot be empty.
  assert.deepEqual(findall(compilePython('(\\d)+'), 'a12'), ['2']);
  assert.deepEqual(findall(compilePython('(?:(\\d+),)?(\\d+)'), '1,234'), [['1', '234']]);
  assert.deepEqual(findall(compilePython('((?:\\d+,)*\\d+)'), 'x 1,234'), ['1,234']);
});
