/**
 * lm-eval task templates (`doc_to_text`, `doc_to_target`, `doc_to_choice`,
 * `description`, `gen_prefix`), rendered as lm-eval renders them: Jinja2 with
 * StrictUndefined, keep_trailing_newline, no autoescape, the `regex_replace`
 * filter, and Python `str()` of every value (docs lmeval-prompts.md §6).
 *
 * Built on `@huggingface/jinja`'s parser (sandboxed: a template can reach only
 * the values given to it and the Python methods ported in `access.ts`) with our
 * Jinja2-compatible lexer and a Python-semantics evaluator. Chat templates are
 * not rendered here: they use `@huggingface/jinja`'s own `Template`.
 */
import { BadInputError, UnsupportedError, type InputLocation } from '../../errors.ts';
import { FILTERS } from './filters.ts';
import type { Node } from './hf.ts';
import { parseTokens } from './hf.ts';
import { Renderer } from './interpreter.ts';
import { tokenizeJinja } from './lexer.ts';
import { NEGATED_TEST_FILTER_PREFIX, TEST_FILTER_PREFIX } from './rewrites.ts';
import { TESTS } from './tests.ts';
import { PyTypeError, PyUndefinedError, PyValueError, fromJs, pyStr, type PyValue } from '../../py/values.ts';

export { PyBigInt, PyDict, PyFloat, PyTuple, type PyValue } from '../../py/values.ts';
export { pyIsDigit, isPySpace, pyStrip } from '../../py/str.ts';

/** Python `str()` of a JSON-like document value (wrap floats in PyFloat), e.g. a target read from a column. */
export function pythonStr(value: unknown): string {
  return pyStr(fromJs(value, new WeakMap()));
}

export interface TemplateOrigin {
  task?: string;
  field?: string;
}

export interface CompiledTemplate {
  readonly source: string;
  /** Render against a document: JSON-like values; wrap float-typed numbers in `PyFloat`. */
  render(context: Record<string, unknown>): string;
}

/** The field goes in the error's location; the task, which InputLocation has no slot for, in its text. */
function where(origin: TemplateOrigin | undefined): InputLocation {
  return origin?.field === undefined ? {} : { field: origin.field };
}

function describe(origin: TemplateOrigin | undefined): string {
  return origin?.task === undefined ? '' : ` in task '${origin.task}'`;
}

/** Jinja2 rejects unknown filters and tests when it compiles; so do we. */
function checkNames(node: unknown, origin: TemplateOrigin | undefined): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const x of node) checkNames(x, origin);
    return;
  }
  if (node instanceof Map) {
    for (const [k, v] of node) {
      checkNames(k, origin);
      checkNames(v, origin);
    }
    return;
  }
  const n = node as Node & Record<string, unknown>;
  if (n.type === 'FilterExpression' || n.type === 'FilterStatement') {
    const f = n['filter'] as { type: string; value?: string; callee?: { value: string } };
    const name = f.type === 'Identifier' ? f.value! : f.callee!.value;
    const test = name.startsWith(NEGATED_TEST_FILTER_PREFIX) ? name.slice(NEGATED_TEST_FILTER_PREFIX.length) : name.startsWith(TEST_FILTER_PREFIX) ? name.slice(TEST_FILTER_PREFIX.length) : undefined;
    if (test !== undefined) {
      if (!Object.hasOwn(TESTS, test)) throw new BadInputError(`template error${describe(origin)}: No test named '${test}'.`, where(origin));
    } else if (!Object.hasOwn(FILTERS, name)) throw new BadInputError(`template error${describe(origin)}: No filter named '${name}'.`, where(origin));
  }
  if (n.type === 'Break' || n.type === 'Continue') {
    // Jinja2 knows these tags only with the loopcontrols extension, which lm-eval does not load.
    const tag = n.type.toLowerCase();
    throw new BadInputError(`template syntax error${describe(origin)}: Encountered unknown tag '${tag}'.`, where(origin));
  }
  if (n.type === 'TestExpression') {
    const name = (n['test'] as { value: string }).value;
    if (!Object.hasOwn(TESTS, name)) throw new BadInputError(`template error${describe(origin)}: No test named '${name}'.`, where(origin));
  }
  for (const key of Object.keys(n)) if (key !== 'type') checkNames(n[key], origin);
}

export function compileTemplate(source: string, origin?: TemplateOrigin): CompiledTemplate {
  let program;
  try {
    program = parseTokens(tokenizeJinja(source));
  } catch (e) {
    // The library's parser reads past the last token (a TypeError) when a template stops mid-construct.
    const detail = e instanceof TypeError ? 'unexpected end of template' : (e as Error).message;
    throw new BadInputError(`template syntax error${describe(origin)}: ${detail}`, where(origin), { cause: e });
  }
  checkNames(program, origin);
  return {
    source,
    render(context: Record<string, unknown>): string {
      try {
        const seen = new WeakMap<object, PyValue>();
        const vars = new Map<string, PyValue>();
        for (const [k, v] of Object.entries(context)) vars.set(k, fromJs(v, seen));
        return new Renderer().render(program, vars);
      } catch (e) {
        throw renderError(e, origin);
      }
    },
  };
}

function renderError(e: unknown, origin: TemplateOrigin | undefined): Error {
  const at = describe(origin);
  if (e instanceof PyUndefinedError) return new BadInputError(`template variable undefined${at}: ${e.message}`, where(origin), { cause: e });
  if (e instanceof PyTypeError || e instanceof PyValueError || e instanceof RangeError) {
    const kind = e instanceof PyValueError ? 'ValueError' : 'TypeError';
    return new BadInputError(`template error${at}: ${kind}: ${e.message}`, where(origin), { cause: e });
  }
  if (e instanceof UnsupportedError) {
    // UnsupportedError carries no location, so the field goes into its text.
    const field = origin?.field === undefined ? '' : ` field '${origin.field}'`;
    return new UnsupportedError(`template${field}${at}: ${e.message}`, { cause: e });
  }
  return e as Error;
}
