/**
 * Jinja2 3.1's built-in filters (and lm-eval's `regex_replace`), with the
 * Python semantics of `jinja2/filters.py`. Filters whose output cannot be
 * byte-identical (`random`, `pprint`, `format` with printf rules, `urlize`…)
 * are absent, so a template using them fails at compile time, naming it.
 */
import { UnsupportedError } from '../../errors.ts';
import { bindArgs, getAttribute, getItem } from './access.ts';
import { pyFloatRepr } from '../../py/float.ts';
import { NEGATED_TEST_FILTER_PREFIX, TEST_FILTER_PREFIX } from './rewrites.ts';
import { pySub } from '../../py/reSub.ts';
import { pyCapitalize, pyLen, pyLower, pyReplace, pyStrip, pyUpper, sliceArray } from '../../py/str.ts';
import { pyFloat, pyRound } from '../../py/float.ts';
import { parsePyInt } from '../../py/int.ts';
import { wordClass } from '../../py/unicodedata.ts';
import { runTest } from './tests.ts';
import {
  PyBigInt, PyDict, PyDictView, PyFloat, PyGenerator, PyRange, PyTuple, PyTypeError, PyUndefined, PyValueError, failUndefined, isFloat,
  makeNumber, numberOf, pyCompare, pyEquals, pyIter, pyRepr, pyStr, truthy, typeName, type PyArgs, type PyValue,
} from '../../py/values.ts';

export type Filter = (value: PyValue, a: PyArgs) => PyValue;

const NO_ARGS: PyArgs = { args: [], kwargs: new Map() };
/** Jinja2's wordcount regex, `\w+` (Python's \w: str.isalnum() or '_'). */
const WORDS = new RegExp(`[${wordClass()}]+`, 'gu');

function len(v: PyValue): number {
  if (typeof v === 'string') return pyLen(v);
  if (Array.isArray(v)) return v.length;
  if (v instanceof PyTuple) return v.items.length;
  if (v instanceof PyRange) return v.length;
  if (v instanceof PyDict) return v.size;
  if (v instanceof PyDictView) return v.items.length;
  if (v instanceof PyUndefined) failUndefined(v);
  throw new PyTypeError(`object of type '${typeName(v)}' has no len()`);
}

/** Jinja2's `make_attrgetter`: dotted names, integer parts as indices. */
function attrGetter(attribute: PyValue | undefined, lower = false): (x: PyValue) => PyValue {
  const parts = attribute === undefined || attribute === null ? [] : typeof attribute === 'number' ? [attribute] : pyStr(attribute).split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return (x) => {
    let v = x;
    for (const p of parts) v = typeof p === 'number' ? getItem(v, p) : getAttribute(v, p);
    return lower && typeof v === 'string' ? pyLower(v) : v;
  };
}

function sortValues(items: PyValue[], key: (x: PyValue) => PyValue, reverse: boolean): PyValue[] {
  const keyed = items.map((v) => ({ v, k: key(v) }));
  // Both sorts are stable, and Python's reverse=True also keeps equal items in their original order.
  keyed.sort(reverse ? (a, b) => pyCompare(b.k, a.k, '<') : (a, b) => pyCompare(a.k, b.k, '<'));
  return keyed.map(({ v }) => v);
}

function asNumber(v: PyValue, what: string): number {
  const n = numberOf(v);
  if (n === undefined) {
    if (v instanceof PyUndefined) failUndefined(v);
    throw new PyTypeError(`${what}: expected a number, got ${typeName(v)}`);
  }
  return n;
}

function select(value: PyValue, a: PyArgs, keep: boolean, byAttr: boolean): PyValue {
  return new PyGenerator('generator', () => selectNow(value, a, keep, byAttr));
}

function selectNow(value: PyValue, a: PyArgs, keep: boolean, byAttr: boolean): PyValue[] {
  const [first, ...rest] = a.args;
  const getter = byAttr ? attrGetter(first) : (x: PyValue) => x;
  const testName = byAttr ? rest[0] : first;
  const testArgs = byAttr ? rest.slice(1) : rest;
  return pyIter(value).filter((item) => {
    const v = getter(item);
    const ok = testName === undefined ? truthy(v) : runTest(pyStr(testName), v, testArgs);
    return ok === keep;
  });
}

function htmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');
}

/** `json.dumps(v, sort_keys=True, indent=…)` (ensure_ascii on), then Jinja2's HTML-safe escapes. */
function toJson(v: PyValue, indent: number | null, depth = 0): string {
  const nl = indent === null ? '' : `\n${' '.repeat(indent * (depth + 1))}`;
  const close = indent === null ? '' : `\n${' '.repeat(indent * depth)}`;
  const sep = indent === null ? ', ' : ',';
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (v instanceof PyBigInt) return v.value.toString();
  if (typeof v === 'number' || v instanceof PyFloat) {
    const n = numberOf(v)!;
    if (Number.isNaN(n)) return 'NaN';
    if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
    return isFloat(v) ? pyFloatRepr(n) : pyRepr(n);
  }
  if (typeof v === 'string') {
    let out = '"';
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i);
      const ch = v[i]!;
      if (ch === '"' || ch === '\\') out += `\\${ch}`;
      else if (ch === '\n') out += '\\n';
      else if (ch === '\r') out += '\\r';
      else if (ch === '\t') out += '\\t';
      else if (ch === '\b') out += '\\b';
      else if (ch === '\f') out += '\\f';
      else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, '0')}`;
      else out += ch;
    }
    return `${out}"`;
  }
  if (Array.isArray(v) || v instanceof PyTuple) {
    const items = pyIter(v);
    return items.length === 0 ? '[]' : `[${nl}${items.map((x) => toJson(x, indent, depth + 1)).join(sep + nl)}${close}]`;
  }
  if (v instanceof PyDict) {
    const entries = v.items().map(([k, x]) => [typeof k === 'string' ? k : pyStr(k), x] as const);
    entries.sort((a, b) => pyCompare(a[0], b[0], '<'));
    if (entries.length === 0) return '{}';
    return `{${nl}${entries.map(([k, x]) => `${toJson(k, null)}: ${toJson(x, indent, depth + 1)}`).join(sep + nl)}${close}}`;
  }
  if (v instanceof PyUndefined) failUndefined(v);
  throw new PyTypeError(`Object of type ${typeName(v)} is not JSON serializable`);
}

export const FILTERS: Record<string, Filter> = {
  abs: (v, a) => (bindArgs('abs', [], a), makeNumber(Math.abs(asNumber(v, 'abs')), isFloat(v))),
  attr: (v, a) => getAttribute(v, pyStr(bindArgs('attr', ['name'], a, 1)[0]!)),
  capitalize: (v, a) => (bindArgs('capitalize', [], a), pyCapitalize(pyStr(v))),
  center: (v, a) => {
    const width = asNumber(bindArgs('center', ['width'], a)[0] ?? 80, 'center');
    const s = pyStr(v);
    const pad = width - pyLen(s);
    if (pad <= 0) return s;
    // CPython's pad(): the left side gets the extra space when both the pad and the width are odd.
    const left = Math.floor(pad / 2) + (pad & width & 1);
    return ' '.repeat(left) + s + ' '.repeat(pad - left);
  },
  default: (v, a) => {
    const [dflt, boolean] = bindArgs('default', ['default_value', 'boolean'], a);
    const useDefault = v instanceof PyUndefined || (boolean !== undefined && truthy(boolean) && !truthy(v));
    return useDefault ? (dflt ?? '') : v;
  },
  dictsort: (v, a) => {
    const [caseSensitive, by, reverse] = bindArgs('dictsort', ['case_sensitive', 'by', 'reverse'], a);
    if (v instanceof PyUndefined) failUndefined(v);
    if (!(v instanceof PyDict)) throw new PyTypeError('dictsort expects a dict');
    const pos = by === undefined || by === 'key' ? 0 : by === 'value' ? 1 : -1;
    if (pos < 0) throw new PyValueError('You can only sort by either "key" or "value"');
    const lower = !(caseSensitive !== undefined && truthy(caseSensitive));
    const items = v.items().map(([k, x]) => new PyTuple([k, x]));
    return sortValues(items, (t) => {
      const x = (t as PyTuple).items[pos]!;
      return lower && typeof x === 'string' ? pyLower(x) : x;
    }, reverse !== undefined && truthy(reverse));
  },
  escape: (v, a) => (bindArgs('escape', [], a), htmlEscape(pyStr(v))),
  first: (v, a) => {
    bindArgs('first', [], a);
    const items = pyIter(v);
    return items.length > 0 ? items[0]! : new PyUndefined('No first item, sequence was empty.');
  },
  float: (v, a) => {
    const [dflt] = bindArgs('float', ['default'], a);
    if (v instanceof PyUndefined) failUndefined(v);
    const n = typeof v === 'string' ? (pyFloat(v) ?? undefined) : numberOf(v);
    return n === undefined ? (dflt ?? new PyFloat(0)) : new PyFloat(n);
  },
  int: (v, a) => {
    const [dflt, base] = bindArgs('int', ['default', 'base'], a);
    if (v instanceof PyUndefined) failUndefined(v);
    let n: number | undefined;
    if (typeof v === 'string') n = parsePyInt(v, base === undefined ? 10 : asNumber(base, 'base')) ?? pyFloat(v) ?? undefined;
    else n = numberOf(v);
    if (n === undefined || Number.isNaN(n)) return dflt ?? 0;
    if (!Number.isFinite(n)) throw new PyValueError('cannot convert float infinity to integer');
    return Math.trunc(n) || 0;
  },
  items: (v, a) => {
    bindArgs('items', [], a);
    if (v instanceof PyUndefined) return new PyGenerator('generator', () => []);
    if (!(v instanceof PyDict)) throw new PyTypeError(`Can only get item pairs from a mapping.`);
    return new PyGenerator('generator', () => v.items().map(([k, x]) => new PyTuple([k, x])));
  },
  join: (v, a) => {
    const [d, attribute] = bindArgs('join', ['d', 'attribute'], a);
    const get = attrGetter(attribute);
    return pyIter(v).map((x) => pyStr(get(x))).join(d === undefined ? '' : pyStr(d));
  },
  last: (v, a) => {
    bindArgs('last', [], a);
    if (v instanceof PyGenerator) throw new PyTypeError("'generator' object is not reversible");
    const items = pyIter(v);
    return items.length > 0 ? items[items.length - 1]! : new PyUndefined('No last item, sequence was empty.');
  },
  length: (v, a) => (bindArgs('length', [], a), len(v)),
  list: (v, a) => (bindArgs('list', [], a), [...pyIter(v)]),
  lower: (v, a) => (bindArgs('lower', [], a), pyLower(pyStr(v))),
  map: (v, a) => new PyGenerator('generator', () => mapNow(v, a)),
  max: (v, a) => minMax(v, a, 'max'),
  min: (v, a) => minMax(v, a, 'min'),
  regex_replace: (v, a) => {
    const [pattern, repl, count] = bindArgs('regex_replace', ['pattern', 'repl', 'count'], a, 2);
    return pySub(pyStr(pattern!), pyStr(repl!), pyStr(v), count === undefined ? 0 : asNumber(count, 'count'));
  },
  reject: (v, a) => select(v, a, false, false),
  rejectattr: (v, a) => select(v, a, false, true),
  replace: (v, a) => {
    const [old, repl, count] = bindArgs('replace', ['old', 'new', 'count'], a, 2);
    return pyReplace(pyStr(v), pyStr(old!), pyStr(repl!), count === undefined || count === null ? -1 : asNumber(count, 'count'));
  },
  reverse: (v, a) => {
    bindArgs('reverse', [], a);
    if (typeof v === 'string') return Array.from(v).reverse().join('');
    // reversed() of a list is an iterator; of a generator it fails and Jinja2 falls back to a list.
    if (v instanceof PyGenerator) return [...pyIter(v)].reverse();
    if (v instanceof PyUndefined) failUndefined(v);
    return new PyGenerator('list_reverseiterator', () => [...pyIter(v)].reverse());
  },
  round: (v, a) => {
    const [precision, method] = bindArgs('round', ['precision', 'method'], a);
    const p = precision === undefined ? 0 : asNumber(precision, 'precision');
    const m = method === undefined ? 'common' : pyStr(method);
    const x = asNumber(v, 'round');
    // Python's round(int, n) is an int, rounded (half to even) only when n < 0.
    if (m === 'common') return isFloat(v) ? new PyFloat(pyRound(x, p)) : p < 0 ? pyRound(x, p) : x;
    if (m !== 'ceil' && m !== 'floor') throw new PyValueError('method must be common, ceil or floor');
    return new PyFloat(Math[m](x * 10 ** p) / 10 ** p);
  },
  select: (v, a) => select(v, a, true, false),
  selectattr: (v, a) => select(v, a, true, true),
  slice: (v, a) => new PyGenerator('generator', () => sliceNow(v, a)),
  unique: (v, a) => new PyGenerator('generator', () => uniqueNow(v, a)),
  sort: (v, a) => {
    const [reverse, caseSensitive, attribute] = bindArgs('sort', ['reverse', 'case_sensitive', 'attribute'], a);
    const lower = !(caseSensitive !== undefined && truthy(caseSensitive));
    return sortValues([...pyIter(v)], attrGetter(attribute, lower), reverse !== undefined && truthy(reverse));
  },
  string: (v, a) => (bindArgs('string', [], a), pyStr(v)),
  sum: (v, a) => {
    const [attribute, start] = bindArgs('sum', ['attribute', 'start'], a);
    const get = attrGetter(attribute);
    let total: PyValue = start ?? 0;
    for (const x of pyIter(v)) {
      const y = get(x);
      total = makeNumber(asNumber(total, 'sum') + asNumber(y, 'sum'), isFloat(total) || isFloat(y));
    }
    return total;
  },
  title: (v, a) => {
    bindArgs('title', [], a);
    // Jinja2's do_title: split on runs of '-', whitespace, '(', '{', '[', '<'; upper() each piece's first character.
    const parts = pyStr(v).split(/((?:[-({[<]|[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000])+)/);
    return parts
      .map((item, i) => {
        if (i % 2 === 1 || item === '') return item;
        const [first, ...rest] = Array.from(item);
        return pyUpper(first!) + pyLower(rest.join(''));
      })
      .join('');
  },
  tojson: (v, a) => {
    const [indent] = bindArgs('tojson', ['indent'], a);
    const json = toJson(v, indent === undefined || indent === null ? null : asNumber(indent, 'indent'));
    return json.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/'/g, '\\u0027');
  },
  trim: (v, a) => {
    const [chars] = bindArgs('trim', ['chars'], a);
    return pyStrip(pyStr(v), chars === undefined || chars === null ? null : pyStr(chars), true, true);
  },
  truncate: (v, a) => {
    const [lengthArg, killwords, endArg, leewayArg] = bindArgs('truncate', ['length', 'killwords', 'end', 'leeway'], a);
    const s = pyStr(v);
    const length = lengthArg === undefined ? 255 : asNumber(lengthArg, 'length');
    const end = endArg === undefined ? '...' : pyStr(endArg);
    const leeway = leewayArg === undefined || leewayArg === null ? 5 : asNumber(leewayArg, 'leeway');
    const chars = Array.from(s);
    if (chars.length <= length + leeway) return s;
    const cut = sliceArray(chars, null, length - pyLen(end), null).join('');
    if (killwords !== undefined && truthy(killwords)) return cut + end;
    const at = cut.lastIndexOf(' ');
    return (at < 0 ? cut : cut.slice(0, at)) + end;
  },
  upper: (v, a) => (bindArgs('upper', [], a), pyUpper(pyStr(v))),
  wordcount: (v, a) => {
    bindArgs('wordcount', [], a);
    return (pyStr(v).match(WORDS) ?? []).length;
  },
  indent: (v, a) => {
    const [width, first, blank] = bindArgs('indent', ['width', 'first', 'blank'], a);
    const indention = typeof width === 'string' ? width : ' '.repeat(width === undefined ? 4 : asNumber(width, 'width'));
    const lines = (pyStr(v) + '\n').split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/).slice(0, -1);
    let rv: string;
    if (blank !== undefined && truthy(blank)) rv = lines.join('\n' + indention);
    else rv = lines[0]! + lines.slice(1).map((l) => '\n' + (l ? indention + l : l)).join('');
    return first !== undefined && truthy(first) ? indention + rv : rv;
  },
};
FILTERS['d'] = FILTERS['default']!;
FILTERS['e'] = FILTERS['escape']!;
FILTERS['count'] = FILTERS['length']!;

function sliceNow(v: PyValue, a: PyArgs): PyValue[][] {
  const [slicesArg, fill] = bindArgs('slice', ['slices', 'fill_with'], a, 1);
  const items = pyIter(v);
  const slices = asNumber(slicesArg!, 'slices');
  const per = Math.floor(items.length / slices);
  const extra = items.length % slices;
  const out: PyValue[][] = [];
  let offset = 0;
  for (let i = 0; i < slices; i++) {
    const start = offset + i * per;
    if (i < extra) offset++;
    const tmp = items.slice(start, offset + (i + 1) * per);
    if (fill !== undefined && i >= extra) tmp.push(fill);
    out.push(tmp);
  }
  return out;
}

function uniqueNow(v: PyValue, a: PyArgs): PyValue[] {
  const [caseSensitive, attribute] = bindArgs('unique', ['case_sensitive', 'attribute'], a);
  const key = attrGetter(attribute, !(caseSensitive !== undefined && truthy(caseSensitive)));
  const seen: PyValue[] = [];
  const out: PyValue[] = [];
  for (const x of pyIter(v)) {
    const k = key(x);
    if (!seen.some((s) => pyEquals(s, k))) {
      seen.push(k);
      out.push(x);
    }
  }
  return out;
}

function mapNow(v: PyValue, a: PyArgs): PyValue[] {
  const items = pyIter(v);
  if (a.kwargs.has('attribute')) {
    const get = attrGetter(a.kwargs.get('attribute'));
    const dflt = a.kwargs.get('default');
    return items.map((x) => {
      const r = get(x);
      return r instanceof PyUndefined && dflt !== undefined ? dflt : r;
    });
  }
  const [name, ...rest] = a.args;
  if (name === undefined) return items;
  const f = Object.hasOwn(FILTERS, pyStr(name)) ? FILTERS[pyStr(name)]! : undefined;
  if (!f) throw new UnsupportedError(`No filter named '${pyStr(name)}'.`);
  return items.map((x) => f(x, { args: rest, kwargs: a.kwargs }));
}

function minMax(v: PyValue, a: PyArgs, which: 'min' | 'max'): PyValue {
  const [caseSensitive, attribute] = bindArgs(which, ['case_sensitive', 'attribute'], a);
  const items = pyIter(v);
  if (items.length === 0) return new PyUndefined(`No aggregated item, sequence was empty.`);
  const key = attrGetter(attribute, !(caseSensitive !== undefined && truthy(caseSensitive)));
  let best: PyValue = items[0]!;
  for (const x of items.slice(1)) {
    const c = pyCompare(key(x), key(best), which === 'min' ? '<' : '>');
    if (which === 'min' ? c < 0 : c > 0) best = x;
  }
  return best;
}

export function applyFilter(name: string, value: PyValue, a: PyArgs = NO_ARGS): PyValue {
  // A test with arguments, which the lexer rewrote into a filter call (lexer.ts, rewriteTestArguments).
  if (name.startsWith(NEGATED_TEST_FILTER_PREFIX)) return !runTest(name.slice(NEGATED_TEST_FILTER_PREFIX.length), value, a.args);
  if (name.startsWith(TEST_FILTER_PREFIX)) return runTest(name.slice(TEST_FILTER_PREFIX.length), value, a.args);
  const f: Filter | undefined = Object.hasOwn(FILTERS, name) ? FILTERS[name] : undefined;
  if (!f) throw new UnsupportedError(`No filter named '${name}'.`);
  return f(value, a);
}

