/**
 * Default sweeps per answer type, read from audits/*.yaml (which users may edit or
 * extend), and the rule that picks an answer type from the stored items.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { BadInputError } from '../errors.ts';
import { packageRoot } from '../util/packageRoot.ts';

export const ANSWER_TYPES = ['letters', 'numbers', 'free-text', 'logprobs', 'loglikelihood'] as const;
export type AnswerType = (typeof ANSWER_TYPES)[number];

export interface Sweep {
  answer_type: AnswerType;
  description: string;
  extractors: string[];
  normalizers: string[];
  aggregations: Aggregation[];
  /** Where the sweep came from (a file path). */
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
        throw new BadInputError(`unknown aggregation '${a}' (known: ${AGGREGATIONS.join(', ')})`, { file, field: 'aggregations' });
      }
    }
    sweeps.set(type as AnswerType, {
      answer_type: type as AnswerType,
      description: typeof record.description === 'string' ? record.description : '',
      extractors: stringList(record.extractors, file, 'extractors'),
      normalizers: stringList(record.normalizers, file, 'normalizers'),
      aggregations: aggregations as Aggregation[],
      source: file,
    });
  }
  return sweeps;
}

/** The sweep of a run whose extractors, normalisers and aggregations were all given on the command line. */
export function commandLineSweep(type: AnswerType, lists: Pick<Sweep, 'extractors' | 'normalizers' | 'aggregations'>): Sweep {
  return { answer_type: type, description: 'given on the command line', ...lists, source: 'command line' };
}

const LETTER = /^\(?[A-Za-z]\)?$/;
const NUMBER = /^[-+]?[$]?[0-9][0-9,]*(\.[0-9]+)?$|####\s*-?[0-9.,]+\s*$/;

/**
 * The answer type of a scope: loglikelihood for one loglikelihood request per
 * document, log-probs (multiple choice) for several;
 * otherwise letters when every gold is a single letter, numbers when every gold
 * is a number (or ends in '#### N'), free text else.
 */
export function detectAnswerType(
  requests: { hasLogprobs: boolean; maxRequests: number },
  golds: readonly string[],
): { type: AnswerType; why: string } {
  if (requests.hasLogprobs && requests.maxRequests === 1) {
    return { type: 'loglikelihood', why: 'one loglikelihood request per document (the gold continuation)' };
  }
  if (requests.hasLogprobs) return { type: 'logprobs', why: 'several loglikelihood requests per document (multiple choice)' };
  const trimmed = golds.map((g) => g.trim());
  if (trimmed.length > 0 && trimmed.every((g) => LETTER.test(g))) return { type: 'letters', why: 'every gold is a single letter' };
  if (trimmed.length > 0 && trimmed.every((g) => NUMBER.test(g))) return { type: 'numbers', why: "every gold is a number (or ends in '#### N')" };
  return { type: 'free-text', why: 'golds are neither single letters nor numbers' };
}
