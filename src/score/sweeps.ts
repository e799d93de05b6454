/**
 * Default sweeps per answer type, read from audits/*.yaml (which users may edit or
 * extend), and the rule that picks an answer type from the stored items.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { BadInputError, nameHint } from '../errors.ts';
import { packageRoot } from '../util/packageRoot.ts';

export const ANSWER_TYPES = ['letters', 'numbers', 'free-text', 'logprobs', 'loglikelihood'] as const;
export type AnswerType = (typeof ANSWER_TYPES)[number];

export interface Sweep {
  answer_type: AnswerType;
  description: string;
  extractors: string[];
  normalizers: string[];
  aggregations: Aggregation[];
  /** Where the sweep came from: a shipped file as `audits/<name>` (no machine's path), a user's as its path. */
  source: string;
}

export const AGGREGATIONS = ['micro', 'macro'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

function auditsDir(): string {
  return process.env.LMAUDIT_AUDITS_DIR ?? join(packageRoot(), 'audits');
}

function stringList(value: unknown, file: string, field: string): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string')) {
    throw new BadInputError('expected a non-empty list of names', { file, field });
  }
  return value as string[];
}

/**
 * Loads every sweep file; later files for the same answer type replace earlier ones.
 * js-yaml is loaded here, not at start-up: a run with every list on the command line
 * never reads a sweep file and need not pay for the parser.
 */
export async function loadSweeps(dir: string = auditsDir()): Promise<Map<AnswerType, Sweep>> {
  const { load: loadYaml } = await import('js-yaml');
  const sweeps = new Map<AnswerType, Sweep>();
  const files = readdirSync(dir).filter((f) => /^sweep-.*\.ya?ml$/.test(f)).sort();
  for (const name of files) {
    const file = join(dir, name);
    let doc: unknown;
    try {
      doc = loadYaml(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new BadInputError(`malformed YAML (${(error as Error).message.split('\n')[0]})`, { file });
    }
    const record = doc as Record<string, unknown>;
    const type = record?.answer_type;
    if (!ANSWER_TYPES.includes(type as AnswerType)) {
      throw new BadInputError(`answer_type must be one of ${ANSWER_TYPES.join(', ')}`, { file, field: 'answer_type' });
    }
    const aggregations = stringList(record.aggregations ?? ['micro', 'macro'], file, 'aggregations');
    for (const a of aggregations) {
      if (!AGGREGATIONS.includes(a as Aggregation)) {
        throw new BadInputError(`unknown aggregation '${a}'.${nameHint(a, AGGREGATIONS)}`, { file, field: 'aggregations' });
      }
    }
    sweeps.set(type as AnswerType, {
      answer_type: type as AnswerType,
      description: typeof record.description === 'string' ? record.description : '',
      extractors: stringList(record.extractors, file, 'extractors'),
      normalizers: stringList(record.normalizers, file, 'normalizers'),
      aggregations: aggregations as Aggregation[],
      source: shownPath(file),
    });
  }
  return sweeps;
}

/**
 * A sweep file's path as outputs name it: a file shipped in the package relative to the package (`audits/sweep-
 * letters.yaml`), so a report or a published view bundle does not carry the path of the machine that made it.
 */
function shownPath(file: string): string {
  const inPackage = relative(packageRoot(), file);
  return inPackage.startsWith('..') || isAbsolute(inPackage) ? file : inPackage;
}

/** The sweep of a run whose extractors, normalisers and aggregations were all given on the command line. */
export function commandLineSweep(type: AnswerType, lists: Pick<Sweep, 'extractors' | 'normalizers' | 'aggregations'>): Sweep {
  return { answer_type: type, description: 'given on the command line', ...lists, source: 'command line' };
}

/** JavaScript's white space (what String.prototype.trim strips), as an RE2 class body. */
const JS_WHITESPACE = '\\t\\n\\x{0b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}';

/**
 * What the answer type reads from a scope's golds, as SQL predicates on one gold (a gold
 * trimmed of white space is tested):
 * - a single letter: `(A)`, `a`, `B)`;
 * - a number: `-1,234.5`, `$12`, or any text ending in `#### N` (GSM8K's answer field).
 * Evaluated over every distinct gold of the scope.
 */
export function goldClassSql(gold: string): { letter: string; number: string } {
  const ws = `[${JS_WHITESPACE}]*`;
  return {
    letter: `regexp_full_match(${gold}, '${ws}\\(?[A-Za-z]\\)?${ws}')`,
    number: `(regexp_full_match(${gold}, '${ws}[-+]?[$]?[0-9][0-9,]*(\\.[0-9]+)?${ws}') OR regexp_matches(${gold}, '####${ws}-?[0-9.,]+${ws}$'))`,
  };
}

/** A scope's golds as the answer type reads them (goldClassSql over every distinct gold). */
export interface GoldSummary {
  /** Distinct golds recorded (first request of each document). */
  count: number;
  allLetters: boolean;
  allNumbers: boolean;
}

/**
 * The answer type of a scope: loglikelihood for one loglikelihood request per
 * document, log-probs (multiple choice) for several;
 * otherwise letters when every gold is a single letter, numbers when every gold
 * is a number (or ends in '#### N'), free text else.
 */
export function detectAnswerType(
  requests: { hasLogprobs: boolean; maxRequests: number },
  golds: GoldSummary,
): { type: AnswerType; why: string } {
  if (requests.hasLogprobs && requests.maxRequests === 1) {
    return { type: 'loglikelihood', why: 'one loglikelihood request per document (the gold continuation)' };
  }
  if (requests.hasLogprobs) return { type: 'logprobs', why: 'several loglikelihood requests per document (multiple choice)' };
  if (golds.count > 0 && golds.allLetters) return { type: 'letters', why: 'every gold is a single letter' };
  if (golds.count > 0 && golds.allNumbers) return { type: 'numbers', why: "every gold is a number (or ends in '#### N')" };
  // Said of the golds as a whole: a run whose golds are half numbers (math: '3', '-3', '\\dfrac{13}{9}') is free text too.
  if (golds.count === 0) return { type: 'free-text', why: 'no gold is recorded to read a type from' };
  return { type: 'free-text', why: 'the golds are neither all single letters nor all numbers' };
}
