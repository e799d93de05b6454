/**
 * The Python data model the template engine works on, and Python's `str()`,
 * `repr()`, truthiness and equality over it.
 *
 * Values are plain JS where Python and JS agree (str → string, int → integral
 * number, bool → boolean, None → null, list → array) and small classes where
 * they do not: `PyFloat` (JS cannot tell 1 from 1.0), `PyTuple`, `PyRange`,
 * `PyDict` (ordered, any hashable key), `PyUndefined` (StrictUndefined),
 * `PyCallable` (bound methods and globals) and `PyNamespace`/`PyObject`
 * (attribute bags such as `loop`). Templates reach nothing else: no JS object
 * is ever indexed by a template-supplied name.
 */
import { UnsupportedError } from '../errors.ts';
import { pyFloatRepr } from './float.ts';
import { compareCodePoints, pyStrRepr } from './str.ts';

/** A Python float. Data loaders wrap float-typed columns in it so `str()` prints `1.0`, not `1`. */
export class PyFloat {
  constructor(readonly value: number) {}
}

/**
 * A Python int beyond 2^53 (DuckDB hands BIGINT columns over as bigint). It
 * prints and compares exactly; arithmetic on it is refused rather than rounded.
 */
export class PyBigInt {
  constructor(readonly value: bigint) {}
}

export class PyTuple {
  constructor(readonly items: readonly PyValue[]) {}
}

export class PyRange {
  constructor(
    readonly start: number,
    readonly stop: number,
    readonly step: number,
  ) {}
  get length(): number {
    const n = this.step > 0 ? Math.ceil((this.stop - this.start) / this.step) : Math.ceil((this.start - this.stop) / -this.step);
    return Math.max(0, n);
  }
  toArray(): number[] {
    return Array.from({ length: this.length }, (_, i) => this.start + i * this.step);
  }
}

/** An insertion-ordered dict. Keys are normalised so that 1, 1.0 and True collide as in Python. */
export class PyDict {
  private readonly entries = new Map<unknown, [PyValue, PyValue]>();
  get size(): number {
    return this.entries.size;
  }
  static hashKey(key: PyValue): unknown {
    if (key instanceof PyFloat) return key.value;
    if (key instanceof PyBigInt) return `\u0000int:${key.value}`;
    if (typeof key === 'boolean') return key ? 1 : 0;
    if (key instanceof PyTuple) return `\u0000tuple:${key.items.map((k) => String(PyDict.hashKey(k))).join('\u0001')}`;
    if (key === null || typeof key === 'string' || typeof key === 'number') return key;
    throw new PyTypeError(`unhashable type: '${typeName(key)}'`);
  }
  get(key: PyValue): PyValue | undefined {
    return this.entries.get(PyDict.hashKey(key))?.[1];
  }
  has(key: PyValue): boolean {
    return this.entries.has(PyDict.hashKey(key));
  }
  set(key: PyValue, value: PyValue): void {
    const h = PyDict.hashKey(key);
    const existing = this.entries.get(h);
    this.entries.set(h, [existing ? existing[0] : key, value]);
  }
  keys(): PyValue[] {
    return [...this.entries.values()].map(([k]) => k);
  }
  values(): PyValue[] {
    return [...this.entries.values()].map(([, v]) => v);
  }
  items(): [PyValue, PyValue][] {
    return [...this.entries.values()];
  }
}

/**
 * A Python iterator (what Jinja2's `map`, `select`, `unique`, `items`… return):
 * evaluated lazily and consumable once, as in Python; printing one would show
 * a memory address, so that is refused.
 */
export class PyGenerator {
  private consumed = false;
  constructor(
    readonly label: string,
    private readonly produce: () => PyValue[],
  ) {}
  consume(): PyValue[] {
    if (this.consumed) return [];
    this.consumed = true;
    return this.produce();
  }
}

/** `dict.keys()`, `.values()`, `.items()`: re-iterable, sized, printed as `dict_items([...])`. */
export class PyDictView {
  constructor(
    readonly label: 'dict_keys' | 'dict_values' | 'dict_items',
    readonly items: readonly PyValue[],
  ) {}
}

/** A missing variable or attribute. StrictUndefined: any use other than a definedness test fails. */
export class PyUndefined {
  /** `strict` false only for the plain Undefined Jinja2 gives `a if b` without an else: it prints '' and is falsy. */
  constructor(
    readonly hint: string,
    readonly strict = true,
  ) {}
}

export type PyArgs = { args: PyValue[]; kwargs: Map<string, PyValue> };

/** A built-in function or bound method the template may call. */
export class PyCallable {
  constructor(
    readonly name: string,
    readonly call: (a: PyArgs) => PyValue,
  ) {}
}

/** An attribute bag (`loop`, `namespace()`, `cycler()`); `mutable` allows `{% set ns.x = … %}`. */
export class PyObject {
  constructor(
    readonly typeLabel: string,
    readonly attrs: Map<string, PyValue>,
    readonly mutable = false,
  ) {}
}

export type PyValue =
  | string
  | number
  | boolean
  | null
  | PyFloat
  | PyBigInt
  | PyValue[]
  | PyTuple
  | PyRange
  | PyDict
  | PyUndefined
  | PyCallable
  | PyGenerator
  | PyDictView
  | PyObject;

/** A Python exception raised while rendering; the renderer reports it with the template's origin. */
export class PyTypeError extends Error {}
export class PyValueError extends Error {}
export class PyUndefinedError extends Error {}

/** JSON-like context value → PyValue (plain objects become dicts in key order). */
export function fromJs(value: unknown, seen: WeakMap<object, PyValue>): PyValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return value;
    case 'bigint':
      return Number.isSafeInteger(Number(value)) ? Number(value) : new PyBigInt(value);
    case 'object': {
      if (value instanceof PyFloat || value instanceof PyBigInt || value instanceof PyTuple || value instanceof PyDict) return value;
      const cached = seen.get(value);
      if (cached !== undefined) return cached;
      if (value instanceof Map) {
        // A Map keeps key order as given; plain objects list integer-like keys first (JS property order).
        const dict = new PyDict();
        seen.set(value, dict);
        for (const [k, v] of value) dict.set(fromJs(k, seen), fromJs(v, seen));
        return dict;
      }
      if (Array.isArray(value)) {
        const out: PyValue[] = [];
        seen.set(value, out);
        for (const item of value) out.push(fromJs(item, seen));
        return out;
      }
      const dict = new PyDict();
      seen.set(value, dict);
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) dict.set(k, fromJs(v, seen));
      return dict;
    }
    default:
      throw new PyTypeError(`unsupported context value of type ${typeof value}`);
  }
}

export function isFloat(v: PyValue): boolean {
  return v instanceof PyFloat || (typeof v === 'number' && !Number.isInteger(v));
}

/** int, float or bool as a JS number; undefined for anything else. */
export function numberOf(v: PyValue): number | undefined {
  if (typeof v === 'number') return v;
  if (v instanceof PyFloat) return v.value;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof PyBigInt) throw new UnsupportedError(`arithmetic on the integer ${v.value} (beyond 2^53) is not supported`);
  return undefined;
}

export function makeNumber(value: number, float: boolean): PyValue {
  return float || !Number.isFinite(value) ? new PyFloat(value) : value;
}

export function typeName(v: PyValue): string {
  if (v === null) return 'NoneType';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (v instanceof PyFloat) return 'float';
  if (v instanceof PyBigInt) return 'int';
  if (Array.isArray(v)) return 'list';
  if (v instanceof PyTuple) return 'tuple';
  if (v instanceof PyRange) return 'range';
  if (v instanceof PyDict) return 'dict';
  if (v instanceof PyUndefined) return 'StrictUndefined';
  if (v instanceof PyCallable) return 'builtin_function_or_method';
  if (v instanceof PyGenerator) return v.label;
  if (v instanceof PyDictView) return v.label;
  return v.typeLabel;
}

export function failUndefined(v: PyUndefined): never {
  throw new PyUndefinedError(v.hint);
}

/** Python `str(v)`, as Jinja's output conversion does it. */
export function pyStr(v: PyValue): string {
  if (typeof v === 'string') return v;
  if (v instanceof PyUndefined) {
    if (!v.strict) return '';
    failUndefined(v);
  }
  return pyRepr(v);
}

/** Python `repr(v)`. */
export function pyRepr(v: PyValue): string {
  if (v === null) return 'None';
  if (typeof v === 'string') return pyStrRepr(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return Number.isInteger(v) ? intRepr(v) : pyFloatRepr(v);
  if (v instanceof PyFloat) return pyFloatRepr(v.value);
  if (v instanceof PyBigInt) return v.value.toString();
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (v instanceof PyTuple) {
    return v.items.length === 1 ? `(${pyRepr(v.items[0]!)},)` : `(${v.items.map(pyRepr).join(', ')})`;
  }
  if (v instanceof PyRange) return v.step === 1 ? `range(${v.start}, ${v.stop})` : `range(${v.start}, ${v.stop}, ${v.step})`;
  if (v instanceof PyDict) return `{${v.items().map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  if (v instanceof PyDictView) return `${v.label}([${v.items.map(pyRepr).join(', ')}])`;
  // StrictUndefined fails on str() but not on repr(), so a list holding one prints `[Undefined]`.
  if (v instanceof PyUndefined) return 'Undefined';
  if (v instanceof PyObject && v.typeLabel === 'Namespace') {
    return `<Namespace {${[...v.attrs].map(([k, x]) => `${pyStrRepr(k)}: ${pyRepr(x)}`).join(', ')}}>`;
  }
  if (v instanceof PyObject && v.typeLabel === 'LoopContext') return `<LoopContext ${pyRepr(v.attrs.get('index')!)}/${pyRepr(v.attrs.get('length')!)}>`;
  // Python would print a memory address here; there is no byte-identical output to give.
  throw new UnsupportedError(`cannot render a ${typeName(v)} object as text (Python prints its memory address)`);
}

function intRepr(n: number): string {
  // Integral doubles beyond 2^53 still print every digit, as a Python int does.
  return Number.isSafeInteger(n) ? String(n) : BigInt(n).toString();
}

/** Python truthiness. */
export function truthy(v: PyValue): boolean {
  if (v === null) return false;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') return v.length > 0;
  if (typeof v === 'number') return v !== 0;
  if (v instanceof PyFloat) return v.value !== 0;
  if (v instanceof PyBigInt) return v.value !== 0n;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PyTuple) return v.items.length > 0;
  if (v instanceof PyRange) return v.length > 0;
  if (v instanceof PyDict) return v.size > 0;
  if (v instanceof PyDictView) return v.items.length > 0;
  if (v instanceof PyUndefined) {
    if (!v.strict) return false;
    failUndefined(v);
  }
  return true;
}

/** Python `==`. */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  if (a instanceof PyUndefined) failUndefined(a);
  if (b instanceof PyUndefined) failUndefined(b);
  if (a instanceof PyBigInt || b instanceof PyBigInt) {
    return a instanceof PyBigInt && b instanceof PyBigInt ? a.value === b.value : false; // a safe int never equals one beyond 2^53
  }
  const x = numberOf(a);
  const y = numberOf(b);
  if (x !== undefined || y !== undefined) return x !== undefined && y !== undefined && x === y;
  if (typeof a === 'string' || typeof b === 'string' || a === null || b === null) return a === b;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => pyEquals(v, b[i]!));
  if (a instanceof PyTuple && b instanceof PyTuple) {
    return a.items.length === b.items.length && a.items.every((v, i) => pyEquals(v, b.items[i]!));
  }
  if (a instanceof PyRange && b instanceof PyRange) return pyEquals(a.toArray(), b.toArray());
  if (a instanceof PyDict && b instanceof PyDict) {
    return a.size === b.size && a.items().every(([k, v]) => b.has(k) && pyEquals(v, b.get(k)!));
  }
  return a === b;
}

/** Python ordering (`<` etc.): numbers, strings by code point, lists and tuples lexicographically. */
export function pyCompare(a: PyValue, b: PyValue, op: string): number {
  if (a instanceof PyUndefined) failUndefined(a);
  if (b instanceof PyUndefined) failUndefined(b);
  const x = numberOf(a);
  const y = numberOf(b);
  if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN;
  if (typeof a === 'string' && typeof b === 'string') return compareCodePoints(a, b);
  const seqA = Array.isArray(a) ? a : a instanceof PyTuple ? a.items : undefined;
  const seqB = Array.isArray(b) ? b : b instanceof PyTuple ? b.items : undefined;
  if (seqA && seqB && Array.isArray(a) === Array.isArray(b)) {
    for (let i = 0; i < Math.min(seqA.length, seqB.length); i++) {
      if (!pyEquals(seqA[i]!, seqB[i]!)) return pyCompare(seqA[i]!, seqB[i]!, op);
    }
    return seqA.length - seqB.length < 0 ? -1 : seqA.length > seqB.length ? 1 : 0;
  }
  throw new PyTypeError(`'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

/** The items Python's `iter(v)` yields (dict → keys, str → characters). */
export function pyIter(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return v;
  if (v instanceof PyTuple) return [...v.items];
  if (typeof v === 'string') return Array.from(v);
  if (v instanceof PyRange) return v.toArray();
  if (v instanceof PyDict) return v.keys();
  if (v instanceof PyDictView) return [...v.items];
  if (v instanceof PyGenerator) return v.consume();
  if (v instanceof PyUndefined) failUndefined(v);
  throw new PyTypeError(`'${typeName(v)}' object is not iterable`);
}
