/**
 * lm-eval's `doc_to_text` / `doc_to_target` / `doc_to_choice` / `resolve_field` /
 * `doc_to_prefix` dispatch (lmeval-prompts.md §5), with its coercion traps: a spec
 * equal to a column name returns the raw value; a rendered digit-only text becomes an
 * int when `doc_to_choice` is configured; a rendered `[...]` target is literal_eval'd.
 */
import { BadInputError } from '../errors.ts';
import { resolveFunction } from '../tasks/functions.ts';
import { fieldLocation } from '../tasks/include.ts';
import type { FieldSpec, TaskConfig } from '../tasks/config.ts';
import { FunctionRef } from '../tasks/yaml.ts';
import { compileTemplate, pyIsDigit } from './jinja/index.ts';
import { LiteralEvalError, literalEvalDocValue } from '../py/literalEval.ts';

type Doc = Record<string, unknown>;

type Compiled = { render(context: Record<string, unknown>): string };

export class TaskFields {
  private readonly templates = new Map<string, Compiled>();
  /** The doc id in errors; set by the builder before each document. */
  docId: number | string = '?';

  constructor(
    readonly config: TaskConfig,
    /** Column names of the processed eval split (lm-eval's `features`). */
    readonly features: ReadonlySet<string>,
    private readonly roots: readonly string[],
  ) {}

  fail(field: string, message: string, cause?: unknown): never {
    throw new BadInputError(`task '${this.config.task}', doc ${this.docId}: ${message}`, fieldLocation(this.config.source, field), { cause });
  }

  render(source: string, doc: Doc, field: string): string {
    // Text without a tag renders to itself (only "\r" would be normalised).
    if (!source.includes('{') && !source.includes('\r')) return source;
    let template = this.templates.get(source);
    if (template === undefined) {
      try {
        template = compileTemplate(source, { task: this.config.task, field });
      } catch (error) {
        return this.fail(field, `template does not compile (${(error as Error).message})`, error);
      }
      this.templates.set(source, template);
    }
    try {
      return template.render(doc);
    } catch (error) {
      return this.fail(field, (error as Error).message, error);
    }
  }

  private callFunction(ref: FunctionRef, doc: Doc, field: string): unknown {
    const fn = resolveFunction(ref, this.roots, this.config.task, field);
    if (fn.kind !== 'doc') this.fail(field, `!function ${ref.name} is not a per-document function`);
    try {
      return fn.fn(doc);
    } catch (error) {
      if (error instanceof BadInputError) this.fail(field, error.detail, error);
      throw error;
    }
  }

  private literal(text: string, field: string): unknown {
    try {
      return literalEvalDocValue(text);
    } catch (error) {
      return this.fail(field, `rendered text is not a Python literal (${(error as Error).message}): ${JSON.stringify(text.slice(0, 120))}`, error);
    }
  }

  private column(doc: Doc, name: string, field: string): unknown {
    if (!(name in doc)) this.fail(field, `document has no field '${name}'`);
    return doc[name];
  }

  docToText(doc: Doc, spec: FieldSpec = this.config.doc_to_text, field = 'doc_to_text'): unknown {
    if (typeof spec === 'number') return spec;
    if (typeof spec === 'string') {
      if (this.features.has(spec)) return this.column(doc, spec, field);
      const text = this.render(spec, doc, field);
      if (pyIsDigit(text) && this.config.doc_to_choice !== null) return this.literal(text, field);
      return text;
    }
    if (spec instanceof FunctionRef) return this.callFunction(spec, doc, field);
    return this.fail(field, `unsupported ${field} spec ${JSON.stringify(spec)}`);
  }

  docToTarget(doc: Doc, spec: FieldSpec = this.config.doc_to_target, field = 'doc_to_target'): unknown {
    if (typeof spec === 'number') return spec;
    if (typeof spec === 'string') {
      if (this.features.has(spec)) return this.column(doc, spec, field);
      const text = this.render(spec, doc, field);
      if (pyIsDigit(text) && this.config.doc_to_choice !== null) return this.literal(text, field);
      if (text.length >= 2 && text.startsWith('[') && text.endsWith(']')) {
        try {
          return literalEvalDocValue(text);
        } catch (error) {
          // lm-eval catches SyntaxError and ValueError only.
          if (error instanceof LiteralEvalError) return text;
          throw error;
        }
      }
      return text;
    }
    if (Array.isArray(spec)) return spec;
    if (spec instanceof FunctionRef) return this.callFunction(spec, doc, field);
    return this.fail(field, `unsupported ${field} spec ${JSON.stringify(spec)}`);
  }

  docToChoice(doc: Doc, spec: FieldSpec = this.config.doc_to_choice, field = 'doc_to_choice'): unknown[] {
    let value: unknown;
    if (typeof spec === 'string') value = this.features.has(spec) ? this.column(doc, spec, field) : this.literal(this.render(spec, doc, field), field);
    else if (Array.isArray(spec)) value = spec;
    else if (spec instanceof FunctionRef) value = this.callFunction(spec, doc, field);
    else if (spec !== null && typeof spec === 'object') value = Object.values(spec);
    else return this.fail(field, 'doc_to_choice was called but is not set');
    if (!Array.isArray(value)) this.fail(field, `choices must be a list, got ${JSON.stringify(value)}`);
    return value;
  }

  /** `resolve_field`: description and few-shot gen_prefix; a key of that doc wins over rendering. */
  resolveField(doc: Doc, spec: string | null, field: string): unknown {
    if (!spec) return null;
    return spec in doc ? doc[spec] : this.render(spec, doc, field);
  }

  /** `doc_to_prefix`: the eval doc's gen_prefix (column name tested against `features`). */
  docToPrefix(doc: Doc): unknown {
    const spec = this.config.gen_prefix;
    if (spec === null) return null;
    return this.features.has(spec) ? doc[spec] : this.render(spec, doc, 'gen_prefix');
  }
}
