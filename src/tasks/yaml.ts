/**
 * Task YAML parsing with PyYAML's semantics: the YAML 1.1 schema (`yes`/`on` are
 * booleans, `0777` is octal), floats kept as `PyFloat` so `1.0` stays a float, and
 * lm-eval's `!function module.name` tag, which becomes a `FunctionRef` resolved later
 * against lmaudit's registry of ports (src/tasks/functions.ts).
 */
import { readFileSync } from 'node:fs';
import { EVENT_ID, NOT_RESOLVED, YAML11_SCHEMA, YAMLException, boolYaml11Tag, defineScalarTag, floatYaml11Tag, getScalarValue, intYaml11Tag, load, parseEvents, type Schema } from 'js-yaml';
import { BadInputError } from '../errors.ts';
import { PyFloat } from '../py/values.ts';

/** A `!function` reference: the dotted name as written and the YAML file that wrote it. */
export class FunctionRef {
  constructor(
    readonly name: string,
    readonly file: string,
  ) {}
  toString(): string {
    return `!function ${this.name}`;
  }
}

/**
 * PyYAML's implicit resolvers (yaml/resolver.py), which lm-eval's loader uses: js-yaml's YAML 1.1 tags also read
 * `y`/`n` as booleans, `0:30`/`02:00` as sexagesimal ints and `-.5` as a float, where PyYAML keeps the text
 * (`doc_to_choice: [y, n]` gave the choices True and False).
 */
const PY_BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const PY_INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const PY_FLOAT = /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

const pyBoolTag = defineScalarTag(boolYaml11Tag.tagName, {
  ...boolYaml11Tag,
  resolve: (source, explicit, tagName) => (!explicit && !PY_BOOL.test(source) ? NOT_RESOLVED : boolYaml11Tag.resolve(source, explicit, tagName)),
});

const pyIntTag = defineScalarTag(intYaml11Tag.tagName, {
  ...intYaml11Tag,
  resolve: (source, explicit, tagName) => (!explicit && !PY_INT.test(source) ? NOT_RESOLVED : intYaml11Tag.resolve(source, explicit, tagName)),
});

const pyFloatTag = defineScalarTag(floatYaml11Tag.tagName, {
  ...floatYaml11Tag,
  resolve: (source, explicit, tagName) => {
    if (!explicit && !PY_FLOAT.test(source)) return NOT_RESOLVED;
    const value = floatYaml11Tag.resolve(source, explicit, tagName);
    return value === NOT_RESOLVED ? value : new PyFloat(value as number);
  },
});

/** The file being parsed, for `FunctionRef.file` (one schema serves every file; parsing is synchronous). */
let parsingFile = '';

const functionTag = defineScalarTag('!function', {
  resolve: (source) => new FunctionRef(source.trim(), parsingFile),
  identify: (value) => value instanceof FunctionRef,
  represent: (value) => (value as FunctionRef).name,
});

const SCHEMA: Schema = YAML11_SCHEMA.withTags(pyBoolTag, pyIntTag, pyFloatTag, functionTag);

/**
 * A task file's mapping with the 1-based line of each top-level key, for errors that name a field (parsed again
 * then, so that the index's many parses do not pay for it).
 */
export function parseYamlFileWithLines(file: string): { value: Record<string, unknown>; lines: Map<string, number> } {
  const { value, source } = parseWithSource(readTaskFile(file), file);
  return { value, lines: keyLines(source) };
}

function keyLines(source: string): Map<string, number> {
  const lines = new Map<string, number>();
  const breaks: number[] = [];
  for (let i = source.indexOf('\n'); i >= 0; i = source.indexOf('\n', i + 1)) breaks.push(i);
  const lineOf = (offset: number): number => {
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (breaks[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
  let depth = 0;
  let keyNext = false;
  for (const e of parseEvents(source, {})) {
    if (e.type === EVENT_ID.POP) {
      depth--;
      continue;
    }
    // depth 2: directly inside the document's top mapping, where keys and values alternate.
    if (depth === 2) {
      if (keyNext && e.type === EVENT_ID.SCALAR) lines.set(getScalarValue(source, e), lineOf(e.valueStart));
      keyNext = !keyNext;
    }
    if (e.type === EVENT_ID.DOCUMENT || e.type === EVENT_ID.MAPPING || e.type === EVENT_ID.SEQUENCE) {
      depth++;
      if (depth === 2) keyNext = e.type === EVENT_ID.MAPPING;
    }
  }
  return lines;
}

/** Parses one YAML file into a plain mapping; malformed YAML is a BadInputError with file and line. */
export function parseYamlFile(file: string): Record<string, unknown> {
  return parseYamlText(readTaskFile(file), file);
}

function readTaskFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new BadInputError(`cannot read task file (${(error as Error).message})`, { file }, { cause: error });
  }
}

/** How many under-indented continuation lines one file may have re-indented before its first error is reported. */
const MAX_REINDENTS = 2000;

export function parseYamlText(text: string, file: string): Record<string, unknown> {
  return parseWithSource(text, file).value;
}

/** The mapping and the text it was parsed from (under-indented continuation lines indented further). */
function parseWithSource(text: string, file: string): { value: Record<string, unknown>; source: string } {
  let value: unknown;
  let source = text;
  let first: YAMLException | null = null;
  for (let attempt = 0; ; attempt++) {
    try {
      parsingFile = file;
      // `json`: a repeated key keeps its last value, as PyYAML does (js-yaml refuses the file).
      value = source.trim() === '' ? {} : load(source, { schema: SCHEMA, filename: file, json: true });
      break;
    } catch (error) {
      if (!(error instanceof YAMLException)) throw error;
      first ??= error;
      const mark = (error as YAMLException & { mark?: { line: number } }).mark;
      const reason = (error as YAMLException & { reason?: string }).reason ?? error.message;
      // PyYAML (and libyaml) never check the indentation of a quoted scalar's or a flow collection's continuation
      // lines; js-yaml refuses one indented less than its node. Those are the only places js-yaml says "deficient
      // indentation", and there a continuation line's leading spaces are folded away or insignificant, so the line
      // is indented further and the file parsed again (lm-eval reads bbh/cot_fewshot, acpbench, evalita_llm…).
      if (reason === 'deficient indentation' && mark !== undefined && attempt < MAX_REINDENTS) {
        source = reindentLine(source, mark.line);
        continue;
      }
      const shown = first as YAMLException & { mark?: { line: number }; reason?: string };
      throw new BadInputError(`malformed YAML: ${shown.reason ?? shown.message}`, { file, line: shown.mark ? shown.mark.line + 1 : undefined }, { cause: shown });
    }
  }
  if (value === null || value === undefined) return { value: {}, source };
  if (typeof value !== 'object' || Array.isArray(value)) throw new BadInputError('a task file must be a YAML mapping', { file });
  refuseAliasBomb(value as Record<string, unknown>, file);
  return { value: value as Record<string, unknown>, source };
}

function reindentLine(text: string, line: number): string {
  let at = 0;
  for (let i = 0; i < line; i++) {
    const next = text.indexOf('\n', at);
    if (next < 0) return text;
    at = next + 1;
  }
  return `${text.slice(0, at)}${' '.repeat(64)}${text.slice(at)}`;
}

/**
 * A task file's values as they will be walked: js-yaml shares one object per anchor, so
 * nine anchors of nine aliases each parse in microseconds and then expand to 9^9 values
 * when the task is copied, rendered or hashed (a RangeError after seconds and a gigabyte).
 * Real task files hold a few thousand values at most.
 */
export const MAX_YAML_VALUES = 1_000_000;

function refuseAliasBomb(value: Record<string, unknown>, file: string): void {
  const sizes = new Map<object, number>();
  const sizeOf = (v: unknown): number => {
    if (v === null || typeof v !== 'object') return 1;
    const known = sizes.get(v);
    if (known !== undefined) return known;
    sizes.set(v, 1); // a cycle (an alias inside its own anchor) counts once
    let n = 1;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      n += sizeOf(child);
      if (n > MAX_YAML_VALUES) break;
    }
    sizes.set(v, n);
    return n;
  };
  let total = 0;
  for (const [key, child] of Object.entries(value)) {
    const n = sizeOf(child);
    total += n;
    if (n > MAX_YAML_VALUES || total > MAX_YAML_VALUES) {
      throw new BadInputError(
        `YAML anchors and aliases expand to more than ${MAX_YAML_VALUES.toLocaleString('en-US')} values (an alias bomb?); refused`,
        { file, field: key },
      );
    }
  }
}
