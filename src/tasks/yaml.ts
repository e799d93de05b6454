/**
 * Task YAML parsing with PyYAML's semantics: the YAML 1.1 schema (`yes`/`on` are
 * booleans, `0777` is octal), floats kept as `PyFloat` so `1.0` stays a float, and
 * lm-eval's `!function module.name` tag, which becomes a `FunctionRef` resolved later
 * against lmaudit's registry of ports (src/tasks/functions.ts).
 */
import { readFileSync } from 'node:fs';
import { NOT_RESOLVED, YAML11_SCHEMA, YAMLException, defineScalarTag, floatYaml11Tag, load, type Schema } from 'js-yaml';
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

const pyFloatTag = defineScalarTag(floatYaml11Tag.tagName, {
  ...floatYaml11Tag,
  resolve: (source, explicit, tagName) => {
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

const SCHEMA: Schema = YAML11_SCHEMA.withTags(pyFloatTag, functionTag);

/** Parses one YAML file into a plain mapping; malformed YAML is a BadInputError with file and line. */
export function parseYamlFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new BadInputError(`cannot read task file (${(error as Error).message})`, { file }, { cause: error });
  }
  return parseYamlText(text, file);
}

export function parseYamlText(text: string, file: string): Record<string, unknown> {
  let value: unknown;
  try {
    parsingFile = file;
    value = text.trim() === '' ? {} : load(text, { schema: SCHEMA, filename: file });
  } catch (error) {
    if (error instanceof YAMLException) {
      const mark = (error as YAMLException & { mark?: { line: number } }).mark;
      const reason = (error as YAMLException & { reason?: string }).reason ?? error.message;
      throw new BadInputError(`malformed YAML: ${reason}`, { file, line: mark ? mark.line + 1 : undefined }, { cause: error });
    }
    throw error;
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new BadInputError('a task file must be a YAML mapping', { file });
  refuseAliasBomb(value as Record<string, unknown>, file);
  return value as Record<string, unknown>;
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
