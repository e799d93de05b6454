/**
 * The `regex` package's `\p{N}`, `\p{P}` and `\p{S}`. sacrebleu's international tokenizer is written
 * with them, and `regex` carries its own Unicode database, newer than CPython 3.11's, so these are
 * not unicodedata's categories: they are the tables of the `regex` release named here
 * (test/golden/unicode_gen.py writes them; test/py/target.test.ts holds them to it).
 */
import { REGEX_N_RANGES, REGEX_P_RANGES, REGEX_S_RANGES, REGEX_PACKAGE_VERSION } from './unicodeCategoryTable.ts';
import { RangeSet } from './unicodedata.ts';

export const REGEX_PACKAGE = { version: REGEX_PACKAGE_VERSION } as const;
/** `regex`'s `\p{N}`. */
export const REGEX_NUMBER = new RangeSet(REGEX_N_RANGES);
/** `regex`'s `\p{P}`. */
export const REGEX_PUNCTUATION = new RangeSet(REGEX_P_RANGES);
/** `regex`'s `\p{S}`. */
export const REGEX_SYMBOL = new RangeSet(REGEX_S_RANGES);
