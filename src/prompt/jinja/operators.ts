/**
 * Python's binary and unary operators as Jinja2 compiles them: int/float
 * arithmetic that keeps the int/float distinction, floor division and modulo
 * with the divisor's sign, `+`/`*` on str, list and tuple, `~` via `str()`,
 * `in` as substring or membership, comparisons by Python's rules.
 */
import { UnsupportedError } from '../../errors.ts';
import {
  PyDict, PyDictView, PyFloat, PyGenerator, PyRange, PyTuple, PyTypeError, PyUndefined, failUndefined, isFloat, makeNumber, numberOf,
  pyCompare, pyEquals, pyIter, pyStr, truthy, typeName, type PyValue,
} from '../../py/values.ts';

/** Python would build it; a hostile template could exhaust memory, so large products are refused. */
const MAX_REPEAT = 10_000_000;

class ZeroDivisionError extends PyTypeError {}

function unsupported(op: string, a: PyValue, b: PyValue): never {
  if (a instanceof PyUndefined) failUndefined(a);
  if (b instanceof PyUndefined) failUndefined(b);
  if (op === '+' && typeof a === 'string') throw new PyTypeError(`can only concatenate str (not "${typeName(b)}") to str`);
  if (op === '+' && Array.isArray(a)) throw new PyTypeError(`can only concatenate list (not "${typeName(b)}") to list`);
  throw new PyTypeError(`unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`);
}

function repeat<T>(seq: readonly T[] | string, times: number): T[] | string {
  const n = Math.max(0, times);
  if (seq.length * n > MAX_REPEAT) throw new UnsupportedError(`refusing to build a sequence of ${seq.length * n} items`);
  if (typeof seq === 'string') return seq.repeat(n);
  const out: T[] = [];
  for (let i = 0; i < n; i++) out.push(...seq);
  return out;
}

function pyMod(x: number, y: number, float: boolean): number {
  if (!float) return ((x % y) + y) % y;
  let mod = x % y;
  if (mod !== 0) {
    if (y < 0 !== mod < 0) mod += y;
  } else mod = y < 0 ? -0 : 0;
  return mod;
}

function arithmetic(op: string, a: PyValue, b: PyValue): PyValue {
  const x = numberOf(a);
  const y = numberOf(b);
  if (x === undefined || y === undefined) return unsupported(op, a, b);
  const float = isFloat(a) || isFloat(b);
  switch (op) {
    case '+':
      return makeNumber(x + y, float);
    case '-':
      return makeNumber(x - y, float);
    case '*':
      return makeNumber(x * y, float);
    case '/':
      if (y === 0) throw new ZeroDivisionError('division by zero');
      return new PyFloat(x / y);
    case '//':
      if (y === 0) throw new ZeroDivisionError(float ? 'float floor division by zero' : 'integer division or modulo by zero');
      return makeNumber(Math.floor(x / y), float);
    case '%':
      if (y === 0) throw new ZeroDivisionError(float ? 'float modulo' : 'integer division or modulo by zero');
      return makeNumber(pyMod(x, y, float), float);
    case '**':
      if (x === 0 && y < 0) throw new ZeroDivisionError('0.0 cannot be raised to a negative power');
      return makeNumber(x ** y, float || y < 0);
    default:
      throw new UnsupportedError(`operator ${op}`);
  }
}

function contains(container: PyValue, item: PyValue): boolean {
  if (container instanceof PyUndefined) failUndefined(container);
  if (item instanceof PyUndefined) failUndefined(item);
  if (typeof container === 'string') {
    if (typeof item !== 'string') throw new PyTypeError(`'in <string>' requires string as left operand, not ${typeName(item)}`);
    return container.includes(item);
  }
  if (Array.isArray(container)) return container.some((x) => pyEquals(x, item));
  if (container instanceof PyTuple) return container.items.some((x) => pyEquals(x, item));
  if (container instanceof PyRange) return container.toArray().some((x) => pyEquals(x, item));
  if (container instanceof PyDict) return container.has(item);
  if (container instanceof PyDictView || container instanceof PyGenerator) return pyIter(container).some((x) => pyEquals(x, item));
  throw new PyTypeError(`argument of type '${typeName(container)}' is not iterable`);
}

export function binaryOp(op: string, a: PyValue, b: PyValue): PyValue {
  switch (op) {
    case '==':
      return pyEquals(a, b);
    case '!=':
      return !pyEquals(a, b);
    case '<':
      return pyCompare(a, b, op) < 0;
    case '>':
      return pyCompare(a, b, op) > 0;
    case '<=':
      return pyCompare(a, b, op) <= 0;
    case '>=':
      return pyCompare(a, b, op) >= 0;
    case 'in':
      return contains(b, a);
    case 'not in':
      return !contains(b, a);
    case '~':
      return pyStr(a) + pyStr(b);
    case '+':
      if (typeof a === 'string' && typeof b === 'string') return a + b;
      if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
      if (a instanceof PyTuple && b instanceof PyTuple) return new PyTuple([...a.items, ...b.items]);
      return arithmetic(op, a, b);
    case '*': {
      const seqTimes = (seq: PyValue, n: PyValue): PyValue | undefined => {
        const k = numberOf(n);
        if (k === undefined || isFloat(n)) return undefined;
        if (typeof seq === 'string') return repeat(seq, k) as string;
        if (Array.isArray(seq)) return repeat(seq, k) as PyValue[];
        if (seq instanceof PyTuple) return new PyTuple(repeat(seq.items, k) as PyValue[]);
        return undefined;
      };
      const r = seqTimes(a, b) ?? seqTimes(b, a);
      if (r !== undefined) return r;
      return arithmetic(op, a, b);
    }
    case '%':
      if (typeof a === 'string') throw new UnsupportedError('printf-style string formatting (str % args) is not supported');
      return arithmetic(op, a, b);
    default:
      return arithmetic(op, a, b);
  }
}

export function unaryOp(op: string, v: PyValue): PyValue {
  if (op === 'not') return !truthy(v);
  const n = numberOf(v);
  if (n === undefined) {
    if (v instanceof PyUndefined) failUndefined(v);
    throw new PyTypeError(`bad operand type for unary ${op}: '${typeName(v)}'`);
  }
  return makeNumber(op === '-' ? -n : n, isFloat(v));
}
