/**
 * The one registry of rescoring readers: text extractors (with parameterised
 * factories such as `first-letter:ABCDE` and `regex:<pattern>[:group]`), log-prob
 * readers for multiple choice, and normalisers. Unknown names get "did you mean".
 */
import { UnknownNameError } from '../errors.ts';
import { BUILTIN_EXTRACTORS, firstLetterExtractor, lastLetterExtractor, type SqlExtractor } from './extractors.ts';
import { LOGPROB_READERS, type LogprobReaderName } from './logprobReaders.ts';
import { NORMALIZERS, type SqlNormalizer } from './normalizers.ts';
import type { ExtractorFactory } from './types.ts';
import { regexExtractor } from './regexExtractor.ts';
import { INSPECT_EXTRACTORS } from './inspect/extractors.ts';

/** Readers that are not text extractors: the source's own scoring, and log-prob argmax rules. */
export const AS_RECORDED = 'as-recorded';

const FACTORIES: Record<string, ExtractorFactory> = {
  'first-letter': firstLetterExtractor,
  'last-letter': lastLetterExtractor,
  regex: regexExtractor,
  // Inspect's scorers, so one log can be read Inspect's way and lm-eval's way side by side.
  ...INSPECT_EXTRACTORS,
};

export type ReaderSpec =
  | { kind: 'text'; name: string; extractor: SqlExtractor }
  | { kind: 'logprob'; name: LogprobReaderName }
  | { kind: 'as-recorded'; name: typeof AS_RECORDED };

export function knownExtractorNames(): string[] {
  return [
    ...Object.keys(BUILTIN_EXTRACTORS),
    ...Object.keys(FACTORIES).map((f) => `${f}[:…]`),
    ...Object.keys(LOGPROB_READERS),
    AS_RECORDED,
  ];
}

export function resolveReader(spec: string): ReaderSpec {
  if (spec === AS_RECORDED) return { kind: 'as-recorded', name: AS_RECORDED };
  if (spec in LOGPROB_READERS) return { kind: 'logprob', name: spec as LogprobReaderName };
  const builtin = BUILTIN_EXTRACTORS[spec];
  if (builtin !== undefined) return { kind: 'text', name: spec, extractor: builtin };
  const colon = spec.indexOf(':');
  const head = colon > 0 ? spec.slice(0, colon) : spec;
  const factory = FACTORIES[head];
  if (factory !== undefined) return { kind: 'text', name: spec, extractor: factory(colon > 0 ? spec.slice(colon + 1) : '') };
  throw new UnknownNameError('extractor', spec, knownExtractorNames());
}

export function resolveNormalizer(name: string): SqlNormalizer {
  const found = (NORMALIZERS as Record<string, SqlNormalizer>)[name];
  if (found === undefined) throw new UnknownNameError('normalizer', name, Object.keys(NORMALIZERS));
  return found;
}

/**
 * A comma-separated list of extractor specs, as `--extractors` takes it. A `regex:` spec's
 * pattern may hold commas (gsm8k's `#### (\-?[0-9\.\,]+)`, `{2,}`), so a comma separates
 * specs only outside brackets, parentheses and braces and when not escaped by a backslash.
 * A pattern that needs a literal comma at its top level writes it `\,` (Python reads that
 * as a comma too).
 */
export function splitSpecs(value: string): string[] {
  const specs: string[] = [];
  let current = '';
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i]!;
    if (ch === '\\' && i + 1 < value.length) {
      current += ch + value[++i]!;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
    } else if (ch === '[') {
      inClass = true;
      current += ch;
      // A '^' and then a ']' right after the opening '[' belong to the class; neither ends it.
      if (value[i + 1] === '^') current += value[++i]!;
      if (value[i + 1] === ']') current += value[++i]!;
      continue;
    } else if (ch === '(' || ch === '{') {
      depth++;
    } else if ((ch === ')' || ch === '}') && depth > 0) {
      depth--;
    } else if (ch === ',' && depth === 0) {
      specs.push(current.trim());
      current = '';
      continue;
    }
    current += ch;
  }
  specs.push(current.trim());
  return specs.filter((s) => s !== '');
}
