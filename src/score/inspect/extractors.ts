/**
 * Inspect's scorers as lmaudit extractors, so one log can be read Inspect's way
 * and lm-eval's way in the same rescore matrix. Each is a factory (called with
 * '' for its defaults): `inspect-match[:begin|end|any|exact][,numeric][,case][,punct]`,
 * `inspect-includes[:case]`, `inspect-pattern:<python regex>`,
 * `inspect-answer:letter|word|line`, `inspect-exact`, `inspect-f1`,
 * `inspect-choice[:multiple]`. The normaliser is applied to the output and each
 * target before Inspect's own normalisation; an item scores 1 when Inspect's
 * value_to_float of the Score is 1 (f1 gives its fraction).
 */
import { BadInputError, didYouMean, nameHint } from '../../errors.ts';
import type { Extractor, ExtractorFactory, ItemView, Normalizer } from '../types.ts';
import { choiceScore } from './choice.ts';
import { valueToFloat } from '../../formats/inspectScore.ts';
import {
  ANSWER_PATTERNS,
  answerScore,
  exactScore,
  f1Score,
  includesScore,
  matchScore,
  patternScore,
  type AnswerKind,
  type InspectScore,
  type MatchLocation,
} from './scorers.ts';

/** A list target is stored as its JSON; anything else is one target. */
export function targetsOfGold(gold: string): string[] {
  if (gold.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(gold);
      if (Array.isArray(parsed) && parsed.every((t) => typeof t === 'string')) return parsed as string[];
    } catch {
      // not JSON: a one-element target that happens to start with '['
    }
  }
  return [gold];
}

function inspectExtractor(name: string, description: string, score: (text: string, targets: string[], item: ItemView) => InspectScore): Extractor {
  return {
    name,
    description,
    // Inspect's scorers read text (they search, compare ends, parse answers): not a value form.
    needsTextForm: true,
    read(item: ItemView, normalizer: Normalizer) {
      const targets = targetsOfGold(item.gold).map((t) => normalizer.normalize(t));
      const s = score(normalizer.normalize(item.text), targets, item);
      const answer = s.answer ?? null;
      return { extracted: answer === null ? null : String(answer), value: valueToFloat(s.value) };
    },
  };
}

function options(argument: string, allowed: readonly string[], name: string): string[] {
  const parts = argument === '' ? [] : argument.split(',').map((p) => p.trim());
  for (const p of parts) {
    if (!allowed.includes(p)) throw new BadInputError(`${name}: unknown option '${p}'.${nameHint(p, allowed)}`, { field: 'extractors' });
  }
  return parts;
}

const LOCATIONS: readonly MatchLocation[] = ['begin', 'end', 'any', 'exact'];

const match: ExtractorFactory = (argument) => {
  const parts = options(argument, [...LOCATIONS, 'numeric', 'case', 'punct'], 'inspect-match');
  const location = (parts.find((p) => (LOCATIONS as readonly string[]).includes(p)) ?? 'end') as MatchLocation;
  const opts = { location, numeric: parts.includes('numeric'), ignore_case: !parts.includes('case'), ignore_punctuation: !parts.includes('punct') };
  return inspectExtractor(
    argument === '' ? 'inspect-match' : `inspect-match:${argument}`,
    `Inspect match(location="${location}", ignore_case=${opts.ignore_case ? 'True' : 'False'}, numeric=${opts.numeric ? 'True' : 'False'})`,
    (text, targets) => matchScore(text, targets, opts),
  );
};

const includes: ExtractorFactory = (argument) => {
  const caseSensitive = options(argument, ['case'], 'inspect-includes').includes('case');
  return inspectExtractor(argument === '' ? 'inspect-includes' : `inspect-includes:${argument}`, 'Inspect includes(): a target is a substring of the output', (text, targets) =>
    includesScore(text, targets, !caseSensitive),
  );
};

const pattern: ExtractorFactory = (argument) => {
  if (argument === '') throw new BadInputError('inspect-pattern needs a Python regex: inspect-pattern:<regex>', { field: 'extractors' });
  return inspectExtractor(`inspect-pattern:${argument}`, `Inspect pattern(${JSON.stringify(argument)})`, (text, targets) => patternScore(text, targets, argument));
};

const answer: ExtractorFactory = (argument) => {
  if (!(argument in ANSWER_PATTERNS)) {
    throw new BadInputError(`inspect-answer needs one of letter, word, line (got '${argument}').${didYouMean(String(argument), ['letter', 'word', 'line'])}`, { field: 'extractors' });
  }
  return inspectExtractor(`inspect-answer:${argument}`, `Inspect answer("${argument}")`, (text, targets) => answerScore(text, targets, argument as AnswerKind));
};

const exact: ExtractorFactory = () => inspectExtractor('inspect-exact', 'Inspect exact(): normalised exact match', (text, targets) => exactScore(text, targets));
const f1: ExtractorFactory = () => inspectExtractor('inspect-f1', 'Inspect f1(): token-set F1, rounded to 2 places', (text, targets) => f1Score(text, targets));

const choice: ExtractorFactory = (argument) => {
  const multiple = options(argument, ['multiple'], 'inspect-choice').includes('multiple');
  return inspectExtractor(
    argument === '' ? 'inspect-choice' : `inspect-choice:${argument}`,
    "Inspect choice(), re-deriving the multiple_choice solver's parse of 'ANSWER: X' (the per-choice flags are not logged)",
    (text, targets, item) => choiceScore(text, targets, item.choices?.length ?? 26, multiple),
  );
};

export const INSPECT_EXTRACTORS: Record<string, ExtractorFactory> = {
  'inspect-match': match,
  'inspect-includes': includes,
  'inspect-pattern': pattern,
  'inspect-answer': answer,
  'inspect-exact': exact,
  'inspect-f1': f1,
  'inspect-choice': choice,
};

/**
 * The extractor specs that read a log the way its own scorers did (so the matrix shows
 * Inspect's reading beside lm-eval's), from the scorers the log recorded. Scorers with
 * no text-only equivalent (model-graded, custom) have none.
 */
export function recordedScorerSpecs(scorers: readonly { name: string; params: Record<string, unknown> }[]): string[] {
  const specs: string[] = [];
  for (const { name, params } of scorers) {
    const bool = (key: string, fallback: boolean) => (typeof params[key] === 'boolean' ? (params[key] as boolean) : fallback);
    const flags = (parts: string[]) => parts.filter((p) => p !== '').join(',');
    switch (name.replace(/^inspect_ai\//, '')) {
      case 'match': {
        const location = typeof params.location === 'string' ? params.location : 'end';
        const argument = flags([location === 'end' ? '' : location, bool('numeric', false) ? 'numeric' : '', bool('ignore_case', true) ? '' : 'case']);
        specs.push(argument === '' ? 'inspect-match' : `inspect-match:${argument}`);
        break;
      }
      case 'includes':
        specs.push(bool('ignore_case', true) ? 'inspect-includes' : 'inspect-includes:case');
        break;
      case 'pattern':
        if (typeof params.pattern === 'string') specs.push(`inspect-pattern:${params.pattern}`);
        break;
      case 'answer':
        if (typeof params.pattern === 'string' && params.pattern in ANSWER_PATTERNS) specs.push(`inspect-answer:${params.pattern}`);
        break;
      case 'exact':
        specs.push('inspect-exact');
        break;
      case 'f1':
        specs.push('inspect-f1');
        break;
      case 'choice':
        specs.push('inspect-choice');
        break;
      default:
        break;
    }
  }
  return [...new Set(specs)];
}
