/**
 * sha256 over f(c) for every code point c (surrogates skipped), NUL-separated: the digest the
 * CPython generators (test/golden/unicode_gen.py, test/py/make_cpython_cases.py) write for a
 * per-character function, so a whole table is compared in one value.
 */
import { createHash } from 'node:crypto';

export function codePointDigest(f: (s: string) => string): string {
  const h = createHash('sha256');
  const nul = Buffer.from([0]);
  for (let c = 0; c < 0x110000; c++) {
    if (c >= 0xd800 && c < 0xe000) continue;
    h.update(Buffer.from(f(String.fromCodePoint(c)), 'utf8'));
    h.update(nul);
  }
  return h.digest('hex');
}
