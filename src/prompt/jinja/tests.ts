/**
 * Jinja2's built-in tests (`x is defined`, `x is none`…). Type tests look at
 * the value without touching it, so they answer false for StrictUndefined
 * instead of raising, as in Jinja2; tests that read the value raise.
 */
import { UnsupportedError } from '../../errors.ts';
import {
  PyCallable, PyDict, PyDictView, PyFloat, PyRange, PyTuple, PyUndefined, PyValueError, failUndefined, numberOf, pyCompare,
  pyEquals, pyIter, pyStr,
  type PyValue,
} from '../../py/values.ts';
import { binaryOp } from './operators.ts';
import { pyIsLower, pyIsUpper } from '../../py/str.ts';

type Test = (value: PyValue, args: PyValue[]) => boolean;

const isNumberValue = (v: PyValue): boolean => typeof v === 'number' || typeof v === 'boolean' || v instanceof PyFloat;
const intValue = (v: PyValue): number => {
  if (v instanceof PyUndefined) failUndefined(v);
  const n = numberOf(v);
  if (n === undefined) throw new UnsupportedError(`test expects a number, got ${pyStr(v)}`);
  return n;
};

export const TESTS: Record<string, Test> = {
  defined: (v) => !(v instanceof PyUndefined),
  undefined: (v) => v instanceof PyUndefined,
  none: (v) => v === null,
  boolean: (v) => typeof v === 'boolean',
  true: (v) => v === true,
  false: (v) => v === false,
  integer: (v) => typeof v === 'number' && Number.isInteger(v),
  float: (v) => v instanceof PyFloat || (typeof v === 'number' && !Number.isInteger(v)),
  number: isNumberValue,
  string: (v) => typeof v === 'string',
  mapping: (v) => v instanceof PyDict,
  sequence: (v) =>
    typeof v === 'string' || Array.isArray(v) || v instanceof PyTuple || v instanceof PyRange || v instanceof PyDict || v instanceof PyDictView,
  iterable: (v) => (pyIter(v), true),
  // StrictUndefined defines __call__ (to raise), so callable() is true for it.
  callable: (v) => v instanceof PyCallable || v instanceof PyUndefined,
  odd: (v) => Math.abs(intValue(v) % 2) === 1,
  even: (v) => intValue(v) % 2 === 0,
  lower: (v) => pyIsLower(pyStr(v)),
  upper: (v) => pyIsUpper(pyStr(v)),
  escaped: () => false,
  divisibleby: (v, [n]) => {
    const d = intValue(n ?? null);
    if (d === 0) throw new PyValueError('integer modulo by zero');
    return intValue(v) % d === 0;
  },
  sameas: (v, [other]) => v === other,
  eq: (v, [other]) => pyEquals(v, other ?? null),
  ne: (v, [other]) => !pyEquals(v, other ?? null),
  lt: (v, [other]) => pyCompare(v, other ?? null, '<') < 0,
  le: (v, [other]) => pyCompare(v, other ?? null, '<=') <= 0,
  gt: (v, [other]) => pyCompare(v, other ?? null, '>') > 0,
  ge: (v, [other]) => pyCompare(v, other ?? null, '>=') >= 0,
  in: (v, [seq]) => binaryOp('in', v, seq ?? null) === true,
};
for (const [alias, name] of [['lessthan', 'lt'], ['<', 'lt'], ['<=', 'le'], ['greaterthan', 'gt'], ['>', 'gt'], ['>=', 'ge']] as const) {
  TESTS[alias] = TESTS[name]!;
}
TESTS['=='] = TESTS['eq']!;
TESTS['!='] = TESTS['ne']!;
TESTS['equalto'] = TESTS['eq']!;

export function runTest(name: string, value: PyValue, args: PyValue[] = []): boolean {
  const t = Object.hasOwn(TESTS, name) ? TESTS[name] : undefined;
  if (!t) throw new UnsupportedError(`No test named '${name}'.`);
  return t(value, args);
}
