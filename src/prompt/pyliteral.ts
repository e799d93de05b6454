/**
 * `ast.literal_eval` for callers that want document values back (lists for tuples,
 * objects for dicts, floats as `PyFloat`). The parser is the template engine's port
 * (src/prompt/jinja/literal.ts, checked against CPython); this only converts its result.
 */
import { LiteralEvalError, PyDict, PyTuple, literalEval as evalPython, type PyValue } from './jinja/index.ts';

/** Raised where CPython raises SyntaxError or ValueError. */
export { LiteralEvalError as PyLiteralError };

export function toDocValue(v: PyValue): unknown {
  if (v instanceof PyTuple) return v.items.map(toDocValue);
  if (Array.isArray(v)) return v.map(toDocValue);
  if (v instanceof PyDict) return Object.fromEntries(v.items().map(([k, x]) => [String(k), toDocValue(x)]));
  return v;
}

export function literalEval(text: string): unknown {
  return toDocValue(evalPython(text));
}
