/**
 * The Unicode character properties CPython 3.11 reads from its own Unicode 14
 * database. JavaScript's `\p{…}` follows Node's ICU, which is newer (digits and
 * letters assigned since 14.0 would count), so these come from tables generated
 * by CPython (test/golden/unicode_gen.py, fixtures/inspect/scripts/unicode_numeric_table.py).
 */
import { ALNUM_RANGES, DECIMAL_RANGES, DIGIT_RANGES, NONPRINTABLE_RANGES, UNASSIGNED_RANGES } from './unicodeTables.ts';
import {
  CATEGORY_RANGES, IDENTIFIER_CONTINUE_RANGES, IDENTIFIER_START_RANGES, LOWERCASE_RANGES, UPPERCASE_RANGES,
} from './unicodeCategoryTable.ts';
import { DIGIT_NOT_DECIMAL, NUMERIC_BY_VALUE } from './unicodeNumericTable.ts';

/** The target these semantics are held to (test/py/target.test.ts checks both against CPython's outputs). */
export const PYTHON_TARGET = { python: '3.11', unicode: '14.0.0' } as const;

/** Sorted code-point ranges, decoded from the generator's base-36 'gap.length-1' pairs. */
export class RangeSet {
  private decoded: { starts: number[]; ends: number[] } | null = null;
  // Decoded (or built) on first use: most commands never ask most tables, and each start-up would pay for all of them.
  constructor(private readonly source: string | (() => { starts: number[]; ends: number[] })) {}
  get starts(): number[] {
    return this.ranges().starts;
  }
  get ends(): number[] {
    return this.ranges().ends;
  }
  private ranges(): { starts: number[]; ends: number[] } {
    if (this.decoded !== null) return this.decoded;
    if (typeof this.source === 'function') return (this.decoded = this.source());
    const starts: number[] = [];
    const ends: number[] = [];
    let prev = -1;
    for (const pair of this.source === '' ? [] : this.source.split(',')) {
      const [gap, len] = pair.split('.') as [string, string];
      const start = prev + 1 + parseInt(gap, 36);
      prev = start + parseInt(len, 36);
      starts.push(start);
      ends.push(prev);
    }
    this.decoded = { starts, ends };
    return this.decoded;
  }
  /** The code points in any of `sets`, adjacent ranges joined. */
  static union(sets: readonly RangeSet[]): RangeSet {
    return new RangeSet(() => {
      const pairs = sets.flatMap((s) => s.starts.map((a, i) => [a, s.ends[i]!] as const)).sort((x, y) => x[0] - y[0]);
      const starts: number[] = [];
      const ends: number[] = [];
      for (const [a, b] of pairs) {
        const last = ends.length - 1;
        if (last >= 0 && a <= ends[last]! + 1) ends[last] = Math.max(ends[last]!, b);
        else {
          starts.push(a);
          ends.push(b);
        }
      }
      return { starts, ends };
    });
  }
  /** The start of the range holding cp, or -1. */
  rangeStart(cp: number): number {
    const { starts, ends } = this.ranges();
    const at = rangeIndex(starts, ends, cp);
    return at < 0 ? -1 : starts[at]!;
  }
  has(cp: number): boolean {
    return this.rangeStart(cp) >= 0;
  }
  /** The body of a regex character class (for a `u` pattern) holding these code points, or the others. */
  classBody(complement = false): string {
    const u = (cp: number) => `\\u{${cp.toString(16)}}`;
    const pairs: [number, number][] = [];
    if (!complement) for (let i = 0; i < this.starts.length; i++) pairs.push([this.starts[i]!, this.ends[i]!]);
    else {
      let next = 0;
      for (let i = 0; i < this.starts.length; i++) {
        if (this.starts[i]! > next) pairs.push([next, this.starts[i]! - 1]);
        next = this.ends[i]! + 1;
      }
      if (next <= 0x10ffff) pairs.push([next, 0x10ffff]);
    }
    return pairs.map(([a, b]) => (a === b ? u(a) : `${u(a)}-${u(b)}`)).join('');
  }
}

export const NONPRINTABLE = new RangeSet(NONPRINTABLE_RANGES);
export const UNASSIGNED = new RangeSet(UNASSIGNED_RANGES);
/** str.isdigit() (Numeric_Type Digit or Decimal). */
export const DIGITS = new RangeSet(DIGIT_RANGES);
/** str.isdecimal() (category Nd); every range starts at a zero (the generator asserts it). */
export const DECIMALS = new RangeSet(DECIMAL_RANGES);
/** str.isalnum(). */
export const ALNUM = new RangeSet(ALNUM_RANGES);

/** Code points that may start a Python identifier (`c.isidentifier()`: XID_Start and '_'). */
export const IDENTIFIER_START = new RangeSet(IDENTIFIER_START_RANGES);
/** Code points that may continue one (`('a' + c).isidentifier()`: XID_Continue). */
export const IDENTIFIER_CONTINUE = new RangeSet(IDENTIFIER_CONTINUE_RANGES);
/** The Lowercase property (Ll and Other_Lowercase): `str.islower()` of one character. */
export const LOWERCASE = new RangeSet(LOWERCASE_RANGES);
/** The Uppercase property (Lu and Other_Uppercase): `str.isupper()` of one character. */
export const UPPERCASE = new RangeSet(UPPERCASE_RANGES);

const CATEGORY_SETS = new Map(Object.entries(CATEGORY_RANGES).map(([name, ranges]) => [name, new RangeSet(ranges)]));
/** Titlecase letters (Lt). */
export const TITLECASE = CATEGORY_SETS.get('Lt')!;
/** Cased code points (Lowercase, Uppercase or Lt), as `str.title()` reads them. */
export const CASED = RangeSet.union([LOWERCASE, UPPERCASE, TITLECASE]);
let categoryIndex: { starts: number[]; ends: number[]; names: string[] } | undefined;

/** `unicodedata.category(chr(cp))`. */
export function category(cp: number): string {
  if (categoryIndex === undefined) {
    const runs = [...CATEGORY_SETS].flatMap(([name, set]) => set.starts.map((a, i) => [a, set.ends[i]!, name] as const));
    runs.sort((x, y) => x[0] - y[0]);
    categoryIndex = { starts: runs.map((r) => r[0]), ends: runs.map((r) => r[1]), names: runs.map((r) => r[2]) };
  }
  const { starts, ends, names } = categoryIndex;
  const at = rangeIndex(starts, ends, cp);
  return at < 0 ? 'Cn' : names[at]!;
}

/**
 * The code points whose category is one of `names`, each a category ('Lu') or its first letter
 * for all of that class ('L'): what `\p{L}` means, held to Python 3.11's Unicode rather than Node's.
 */
export function categorySet(...names: string[]): RangeSet {
  const sets = [...CATEGORY_SETS].filter(([name]) => names.some((n) => name === n || (n.length === 1 && name[0] === n)));
  return RangeSet.union(sets.map(([, set]) => set));
}

/** The body of a regex character class (for a `u` pattern) matching Python's `\w` on str: isalnum() or '_'. */
export function wordClass(): string {
  return (classes.word ??= `${ALNUM.classBody()}_`);
}
/** The body of a class matching Python's `\d` on str (isdecimal()). */
export function decimalClass(): string {
  return (classes.decimal ??= DECIMALS.classBody());
}
const classes: { word?: string; decimal?: string } = {};

/** `unicodedata.decimal(ch)`, or null: the offset into its run of Nd digits, mod 10. */
export function decimalValue(cp: number): number | null {
  if (cp >= 0x30 && cp <= 0x39) return cp - 0x30;
  if (cp < 0x80) return null;
  const start = DECIMALS.rangeStart(cp);
  return start < 0 ? null : (cp - start) % 10;
}

const NUMERIC = new Map<string, number>();
for (const [value, chars] of Object.entries(NUMERIC_BY_VALUE)) for (const ch of chars) NUMERIC.set(ch, Number(value));
const DIGIT_ONLY = new Set(DIGIT_NOT_DECIMAL);

/** `unicodedata.numeric(ch)`, or null. */
export function numericValue(ch: string): number | null {
  return decimalValue(ch.codePointAt(0)!) ?? NUMERIC.get(ch) ?? null;
}

/** `unicodedata.digit(ch)` for a character that is a digit but not a decimal (superscripts, circled digits), or null. */
export function digitOnlyValue(ch: string): number | null {
  return DIGIT_ONLY.has(ch) ? NUMERIC.get(ch)! : null;
}

/** Python's `\w` on str (`str.isalnum()` or '_'), for one code point. */
export function isWordChar(cp: number): boolean {
  if (cp < 0x80) return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f;
  return ALNUM.has(cp);
}

/** Whether the code point ending just before `index` is a word character (Python `\w`, for `\b`). */
export function wordBefore(text: string, index: number): boolean {
  if (index <= 0) return false;
  let start = index - 1;
  const unit = text.charCodeAt(start);
  if (unit >= 0xdc00 && unit <= 0xdfff && start > 0) start--;
  return isWordChar(text.codePointAt(start)!);
}

/** Whether the code point starting at `index` is a word character (Python `\w`, for `\b`). */
export function wordAt(text: string, index: number): boolean {
  if (index >= text.length) return false;
  return isWordChar(text.codePointAt(index)!);
}

/** The index of the sorted, disjoint range [starts[i], ends[i]] holding cp, or -1. */
function rangeIndex(starts: readonly number[], ends: readonly number[], cp: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (cp < starts[mid]!) hi = mid - 1;
    else if (cp > ends[mid]!) lo = mid + 1;
    else return mid;
  }
  return -1;
}
