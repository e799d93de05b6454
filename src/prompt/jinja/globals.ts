/**
 * The globals of a default Jinja2 Environment: `range`, `dict`, `namespace`,
 * `cycler`, `joiner` (and `lipsum`, refused: its output is random). Template
 * variables shadow them, as in Jinja2.
 */
import { UnsupportedError } from '../../errors.ts';
import { bindArgs } from './access.ts';
import {
  PyCallable, PyDict, PyFloat, PyObject, PyRange, PyTypeError, PyValueError, numberOf, pyStr, typeName,
  type PyValue,
} from '../../py/values.ts';

const MAX_RANGE = 10_000_000;

function intArg(v: PyValue): number {
  const n = numberOf(v);
  if (n === undefined || v instanceof PyFloat || !Number.isInteger(n)) {
    throw new PyTypeError(`'${typeName(v)}' object cannot be interpreted as an integer`);
  }
  return n;
}

export const GLOBALS: Record<string, PyValue> = {
  range: new PyCallable('range', ({ args, kwargs }) => {
    if (kwargs.size > 0) throw new PyTypeError('range() takes no keyword arguments');
    if (args.length < 1 || args.length > 3) throw new PyTypeError(`range expected at most 3 arguments, got ${args.length}`);
    const [start, stop, step] = args.length === 1 ? [0, intArg(args[0]!), 1] : [intArg(args[0]!), intArg(args[1]!), args[2] === undefined ? 1 : intArg(args[2])];
    if (step === 0) throw new PyValueError('range() arg 3 must not be zero');
    const r = new PyRange(start, stop, step);
    if (r.length > MAX_RANGE) throw new UnsupportedError(`refusing range() of ${r.length} items`);
    return r;
  }),
  dict: new PyCallable('dict', ({ args, kwargs }) => {
    if (args.length > 0) throw new UnsupportedError('dict() with positional arguments is not supported');
    const d = new PyDict();
    for (const [k, v] of kwargs) d.set(k, v);
    return d;
  }),
  namespace: new PyCallable('namespace', ({ args, kwargs }) => {
    const attrs = new Map<string, PyValue>();
    for (const a of args) {
      if (!(a instanceof PyDict)) throw new PyTypeError('namespace() positional argument must be a dict');
      for (const [k, v] of a.items()) attrs.set(pyStr(k), v);
    }
    for (const [k, v] of kwargs) attrs.set(k, v);
    return new PyObject('Namespace', attrs, true);
  }),
  cycler: new PyCallable('cycler', ({ args }) => {
    if (args.length === 0) throw new PyTypeError('at least one item has to be provided');
    let pos = 0;
    const attrs = new Map<string, PyValue>();
    const obj = new PyObject('Cycler', attrs);
    const sync = (): void => void attrs.set('current', args[pos]!);
    attrs.set('next', new PyCallable('cycler.next', () => {
      const v = args[pos]!;
      pos = (pos + 1) % args.length;
      sync();
      return v;
    }));
    attrs.set('reset', new PyCallable('cycler.reset', () => {
      pos = 0;
      sync();
      return null;
    }));
    sync();
    return obj;
  }),
  joiner: new PyCallable('joiner', (a) => {
    const sep = bindArgs('joiner', ['sep'], a)[0] ?? ', ';
    let used = false;
    return new PyCallable('joiner', () => {
      if (!used) {
        used = true;
        return '';
      }
      return sep;
    });
  }),
  lipsum: new PyCallable('lipsum', () => {
    throw new UnsupportedError('lipsum() output is random; it cannot be reproduced');
  }),
};
