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
