/**
 * Attribute and item access with Jinja2's rules (`a.b` tries the Python
 * attribute, then the item; `a[b]` the item, then the attribute) over the
 * Python methods of str, list, tuple and dict. This is the sandbox boundary:
 * the only attributes that exist are the method names listed here and the
 * entries of our own dicts and attribute bags, so `__class__`, `constructor`
 * or `__proto__` resolve to undefined, never to a JavaScript object.
 */
import { UnsupportedError } from '../../errors.ts';
import {
  casefold, pyCapitalize, pyCharAt, pyCount, pyFind, pyLen, pyLower, pyReplace, pyRsplit, pySplit, pyStrip, pyTitle, pyUpper,
} from '../../py/str.ts';
import {
  PyCallable, PyDict, PyDictView, PyFloat, PyObject, PyRange, PyTuple, PyTypeError, PyUndefined, PyValueError, failUndefined, numberOf,
  pyEquals, pyIter, pyRepr, pyStr, typeName, type PyArgs, type PyValue,
} from '../../py/values.ts';

type Method<T> = (self: T, a: PyArgs) => PyValue;

/** Bind positional and keyword arguments to parameter names as Python does; missing optional ones are undefined. */
export function bindArgs(fname: string, params: readonly string[], a: PyArgs, required = 0): (PyValue | undefined)[] {
  if (a.args.length > params.length) {
    throw new PyTypeError(`${fname}() takes at most ${params.length} arguments (${a.args.length} given)`);
  }
  const out: (PyValue | undefined)[] = params.map((_, i) => a.args[i]);
  for (const [k, v] of a.kwargs) {
    const i = params.indexOf(k);
    if (i < 0) throw new PyTypeError(`${fname}() got an unexpected keyword argument '${k}'`);
    if (out[i] !== undefined) throw new PyTypeError(`${fname}() got multiple values for argument '${k}'`);
    out[i] = v;
  }
  for (let i = 0; i < required; i++) {
    if (out[i] === undefined) throw new PyTypeError(`${fname}() missing required argument '${params[i]}'`);
  }
  return out;
}

function str(v: PyValue | undefined, what: string): string {
  if (typeof v === 'string') return v;
  if (v instanceof PyUndefined) failUndefined(v);
  throw new PyTypeError(`${what} must be str, not ${v === undefined ? 'missing' : typeName(v)}`);
}
function optStr(v: PyValue | undefined, what: string): string | null {
  return v === undefined || v === null ? null : str(v, what);
}
function int(v: PyValue | undefined, dflt: number, what: string): number {
  if (v === undefined || v === null) return dflt;
  const n = numberOf(v);
  if (n === undefined || !Number.isInteger(n) || v instanceof PyFloat) {
    throw new PyTypeError(`${what} must be an integer, not ${typeName(v)}`);
  }
  return n;
}
function optIndex(v: PyValue | undefined): number | null {
  return v === undefined || v === null ? null : int(v, 0, 'slice index');
}
function affixes(v: PyValue | undefined, what: string): string[] {
  if (v instanceof PyTuple) return v.items.map((x) => str(x, what));
  return [str(v, what)];
}

const STR_METHODS: Record<string, Method<string>> = {
  strip: (s, a) => pyStrip(s, optStr(bindArgs('strip', ['chars'], a)[0], 'strip arg'), true, true),
  lstrip: (s, a) => pyStrip(s, optStr(bindArgs('lstrip', ['chars'], a)[0], 'lstrip arg'), true, false),
  rstrip: (s, a) => pyStrip(s, optStr(bindArgs('rstrip', ['chars'], a)[0], 'rstrip arg'), false, true),
  split: (s, a) => {
    const [sep, max] = bindArgs('split', ['sep', 'maxsplit'], a);
    return pySplit(s, optStr(sep, 'sep'), int(max, -1, 'maxsplit'));
  },
  rsplit: (s, a) => {
    const [sep, max] = bindArgs('rsplit', ['sep', 'maxsplit'], a);
    return pyRsplit(s, optStr(sep, 'sep'), int(max, -1, 'maxsplit'));
  },
  splitlines: (s, a) => {
    const keep = bindArgs('splitlines', ['keepends'], a)[0];
    const parts = s.split(/(\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029])/);
    const out: string[] = [];
    for (let i = 0; i < parts.length; i += 2) {
      const line = parts[i]! + (keep !== undefined && keep !== false && keep !== 0 ? (parts[i + 1] ?? '') : '');
      if (i + 1 < parts.length || parts[i] !== '') out.push(line);
    }
    return out;
  },
  replace: (s, a) => {
    const [old, repl, count] = bindArgs('replace', ['old', 'new', 'count'], a, 2);
    return pyReplace(s, str(old, 'replace() argument 1'), str(repl, 'replace() argument 2'), int(count, -1, 'count'));
  },
  upper: (s, a) => (bindArgs('upper', [], a), pyUpper(s)),
  lower: (s, a) => (bindArgs('lower', [], a), pyLower(s)),
  casefold: (s, a) => (bindArgs('casefold', [], a), casefold(s)),
  capitalize: (s, a) => (bindArgs('capitalize', [], a), pyCapitalize(s)),
  title: (s, a) => (bindArgs('title', [], a), pyTitle(s)),
  startswith: (s, a) => {
    const [p, start, end] = bindArgs('startswith', ['prefix', 'start', 'end'], a, 1);
    const window = windowOf(s, optIndex(start), optIndex(end));
    return window !== null && affixes(p, 'startswith first arg').some((x) => window.startsWith(x));
  },
  endswith: (s, a) => {
    const [p, start, end] = bindArgs('endswith', ['suffix', 'start', 'end'], a, 1);
    const window = windowOf(s, optIndex(start), optIndex(end));
    return window !== null && affixes(p, 'endswith first arg').some((x) => window.endsWith(x));
  },
  find: (s, a) => {
    const [sub, start, end] = bindArgs('find', ['sub', 'start', 'end'], a, 1);
    return pyFind(s, str(sub, 'find arg'), optIndex(start), optIndex(end), false);
  },
  rfind: (s, a) => {
    const [sub, start, end] = bindArgs('rfind', ['sub', 'start', 'end'], a, 1);
    return pyFind(s, str(sub, 'rfind arg'), optIndex(start), optIndex(end), true);
  },
  index: (s, a) => {
    const [sub, start, end] = bindArgs('index', ['sub', 'start', 'end'], a, 1);
    const at = pyFind(s, str(sub, 'index arg'), optIndex(start), optIndex(end), false);
    if (at < 0) throw new PyValueError('substring not found');
    return at;
  },
  rindex: (s, a) => {
    const [sub, start, end] = bindArgs('rindex', ['sub', 'start', 'end'], a, 1);
    const at = pyFind(s, str(sub, 'rindex arg'), optIndex(start), optIndex(end), true);
    if (at < 0) throw new PyValueError('substring not found');
    return at;
  },
  count: (s, a) => pyCount(s, str(bindArgs('count', ['sub'], a, 1)[0], 'count arg')),
  join: (s, a) => {
    const items = iterArg(bindArgs('join', ['iterable'], a, 1)[0]!);
    return items.map((x, i) => {
      if (typeof x !== 'string') throw new PyTypeError(`sequence item ${i}: expected str instance, ${typeName(x)} found`);
      return x;
    }).join(s);
  },
  removeprefix: (s, a) => {
    const p = str(bindArgs('removeprefix', ['prefix'], a, 1)[0], 'removeprefix arg');
    return p !== '' && s.startsWith(p) ? s.slice(p.length) : s;
  },
  removesuffix: (s, a) => {
    const p = str(bindArgs('removesuffix', ['suffix'], a, 1)[0], 'removesuffix arg');
    return p !== '' && s.endsWith(p) ? s.slice(0, s.length - p.length) : s;
  },
  partition: (s, a) => {
    const sep = str(bindArgs('partition', ['sep'], a, 1)[0], 'partition arg');
    if (sep === '') throw new PyValueError('empty separator');
    const at = s.indexOf(sep);
    return at < 0 ? new PyTuple([s, '', '']) : new PyTuple([s.slice(0, at), sep, s.slice(at + sep.length)]);
  },
  rpartition: (s, a) => {
    const sep = str(bindArgs('rpartition', ['sep'], a, 1)[0], 'rpartition arg');
    if (sep === '') throw new PyValueError('empty separator');
    const at = s.lastIndexOf(sep);
    return at < 0 ? new PyTuple(['', '', s]) : new PyTuple([s.slice(0, at), sep, s.slice(at + sep.length)]);
  },
  zfill: (s, a) => {
    const width = int(bindArgs('zfill', ['width'], a, 1)[0], 0, 'width');
    const pad = width - pyLen(s);
    if (pad <= 0) return s;
    const sign = s[0] === '+' || s[0] === '-' ? s[0] : '';
    return sign + '0'.repeat(pad) + s.slice(sign.length);
  },
  isspace: (s, a) => (bindArgs('isspace', [], a), s.length > 0 && pyStrip(s, null, true, false) === ''),
};

const LIST_METHODS: Record<string, Method<readonly PyValue[]>> = {
  index: (xs, a) => {
    const [x, start, end] = bindArgs('index', ['value', 'start', 'stop'], a, 1);
    const n = xs.length;
    const norm = (v: number | null, d: number): number => (v === null ? d : v < 0 ? Math.max(0, v + n) : Math.min(v, n));
    for (let i = norm(optIndex(start), 0); i < norm(optIndex(end), n); i++) if (pyEquals(xs[i]!, x!)) return i;
    throw new PyValueError(`${pyRepr(x!)} is not in list`);
  },
  count: (xs, a) => {
    const x = bindArgs('count', ['value'], a, 1)[0]!;
    return xs.filter((y) => pyEquals(y, x)).length;
  },
  copy: (xs, a) => (bindArgs('copy', [], a), [...xs]),
};

const DICT_METHODS: Record<string, Method<PyDict>> = {
  get: (d, a) => {
    const [k, dflt] = bindArgs('get', ['key', 'default'], a, 1);
    return d.has(k!) ? d.get(k!)! : (dflt ?? null);
  },
  items: (d, a) => (bindArgs('items', [], a), new PyDictView('dict_items', d.items().map(([k, v]) => new PyTuple([k, v])))),
  keys: (d, a) => (bindArgs('keys', [], a), new PyDictView('dict_keys', d.keys())),
  values: (d, a) => (bindArgs('values', [], a), new PyDictView('dict_values', d.values())),
  copy: (d, a) => {
    bindArgs('copy', [], a);
    const out = new PyDict();
    for (const [k, v] of d.items()) out.set(k, v);
    return out;
  },
};

// Every public method name Python 3.11 defines on these types: attribute lookup
// must find the method (not a same-named dict key) even where it is not ported.
const PY_METHOD_NAMES: Record<'str' | 'list' | 'tuple' | 'dict', readonly string[]> = {
  str: ['capitalize', 'casefold', 'center', 'count', 'encode', 'endswith', 'expandtabs', 'find', 'format', 'format_map', 'index', 'isalnum', 'isalpha', 'isascii', 'isdecimal', 'isdigit', 'isidentifier', 'islower', 'isnumeric', 'isprintable', 'isspace', 'istitle', 'isupper', 'join', 'ljust', 'lower', 'lstrip', 'maketrans', 'partition', 'removeprefix', 'removesuffix', 'replace', 'rfind', 'rindex', 'rjust', 'rpartition', 'rsplit', 'rstrip', 'split', 'splitlines', 'startswith', 'strip', 'swapcase', 'title', 'translate', 'upper', 'zfill'],
  list: ['append', 'clear', 'copy', 'count', 'extend', 'index', 'insert', 'pop', 'remove', 'reverse', 'sort'],
  tuple: ['count', 'index'],
  dict: ['clear', 'copy', 'fromkeys', 'get', 'items', 'keys', 'pop', 'popitem', 'setdefault', 'update', 'values'],
};

function method<T>(kind: keyof typeof PY_METHOD_NAMES, table: Record<string, Method<T>>, self: T, name: string): PyCallable | undefined {
  if (!PY_METHOD_NAMES[kind].includes(name)) return undefined;
  const impl = Object.hasOwn(table, name) ? table[name] : undefined;
  return new PyCallable(`${kind}.${name}`, (a) => {
    if (!impl) throw new UnsupportedError(`the Python method ${kind}.${name}() is not supported in task templates`);
    return impl(self, a);
  });
}

function iterArg(v: PyValue): PyValue[] {
  try {
    return pyIter(v);
  } catch (e) {
    if (e instanceof PyTypeError) throw new PyTypeError('can only join an iterable');
    throw e;
  }
}

function windowOf(s: string, start: number | null, end: number | null): string | null {
  if (start === null && end === null) return s;
  const cs = Array.from(s);
  const n = cs.length;
  const norm = (v: number | null, d: number): number => (v === null ? d : v < 0 ? Math.max(0, v + n) : v);
  const a = norm(start, 0);
  if (a > n) return null;
  return cs.slice(a, Math.max(a, Math.min(norm(end, n), n))).join('');
}

/** Jinja2's object_type_repr, used in undefined messages. */
function objectTypeRepr(obj: PyValue): string {
  return obj === null ? 'None' : `${typeName(obj)} object`;
}

/** The Python attribute `name` of `obj`, or undefined when it has none. */
function pyGetattr(obj: PyValue, name: string): PyValue | undefined {
  if (typeof obj === 'string') return method('str', STR_METHODS, obj, name);
  if (Array.isArray(obj)) return method('list', LIST_METHODS, obj, name);
  if (obj instanceof PyTuple) return method('tuple', LIST_METHODS, obj.items, name);
  if (obj instanceof PyDict) return method('dict', DICT_METHODS, obj, name);
  if (obj instanceof PyObject) return obj.attrs.has(name) ? obj.attrs.get(name)! : undefined;
  return undefined;
}

/** `obj[key]` in Python, or undefined on a lookup or type error. */
function pyGetitem(obj: PyValue, key: PyValue): PyValue | undefined {
  if (obj instanceof PyDict) {
    try {
      return obj.get(key);
    } catch {
      return undefined; // unhashable key: TypeError, which Jinja2 turns into undefined
    }
  }
  const i = typeof key === 'boolean' ? (key ? 1 : 0) : key;
  if (typeof i !== 'number' || !Number.isInteger(i)) return undefined;
  if (typeof obj === 'string') return pyCharAt(obj, i);
  const seq = Array.isArray(obj) ? obj : obj instanceof PyTuple ? obj.items : obj instanceof PyRange ? obj.toArray() : undefined;
  if (!seq) return undefined;
  const j = i < 0 ? i + seq.length : i;
  return j >= 0 && j < seq.length ? seq[j] : undefined;
}

/** Jinja2 `Environment.getattr`: `a.b`. */
export function getAttribute(obj: PyValue, name: string): PyValue {
  if (obj instanceof PyUndefined) failUndefined(obj);
  const attr = pyGetattr(obj, name);
  if (attr !== undefined) return attr;
  const item = pyGetitem(obj, name);
  if (item !== undefined) return item;
  return new PyUndefined(`${pyRepr(objectTypeRepr(obj))} has no attribute ${pyRepr(name)}`);
}

/** Jinja2 `Environment.getitem`: `a[b]`. */
export function getItem(obj: PyValue, key: PyValue): PyValue {
  if (obj instanceof PyUndefined) failUndefined(obj);
  // Hashing StrictUndefined raises; indexing a sequence with it is a TypeError, which Jinja2 turns into undefined.
  if (key instanceof PyUndefined && obj instanceof PyDict) failUndefined(key);
  const item = pyGetitem(obj, key);
  if (item !== undefined) return item;
  if (typeof key === 'string') {
    const attr = pyGetattr(obj, key);
    if (attr !== undefined) return attr;
    return new PyUndefined(`${pyRepr(objectTypeRepr(obj))} has no attribute ${pyRepr(key)}`);
  }
  return new PyUndefined(`${objectTypeRepr(obj)} has no element ${pyStr(pyRepr(key))}`);
}
