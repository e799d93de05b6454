/**
 * `choice()` re-derived. Inspect's choice scorer reads per-choice `correct` flags
 * that the multiple_choice solver set from its own parse of the completion;
 * those flags are not in the log, so Inspect's own `inspect score --scorer
 * choice` marks every sample INCORRECT. Here the solver's parse
 * (solver/_multiple_choice.py parse_answers, 0.3.260) is re-run on the stored
 * completion and the scorer's comparison applied to its result.
 */
import { compilePython } from '../../py/re.ts';
import { findall } from '../../py/reMatch.ts';
import { pyStrip, pyUpper } from '../../py/str.ts';
import { categorySet, decimalValue } from '../../py/unicodedata.ts';
import type { InspectScore } from './scorers.ts';

const STRICT = compilePython('(?i)^ANSWER\\s*:\\s*([A-Za-z\\d ,]+)\\s*(?:$|\\n|\\.)', { multiline: true });
const LOOSE = compilePython('(?i)ANSWER\\s*:\\s*([A-Za-z\\d ,]+)(?:[^\\w]|\\n|$|\\.)');

export function answerCharacter(index: number): string {
  return index < 26 ? String.fromCharCode(65 + index) : String(index - 25);
}

/** str.isalpha() of one character: its category is a letter's. */
const LETTERS = categorySet('L');

/**
 * Index of an answer character, `ord(c.upper()) - ord("A") if c.isalpha() else 25 + int(c)`;
 * null where Python's answer_index raises (an upper case of two characters, a character int() refuses).
 */
export function answerIndex(char: string): number | null {
  const cp = char.codePointAt(0);
  if (cp === undefined || String.fromCodePoint(cp) !== char) return null;
  if (LETTERS.has(cp)) {
    const upper = [...pyUpper(char)];
    return upper.length === 1 ? upper[0]!.codePointAt(0)! - 65 : null;
  }
  const digit = decimalValue(cp);
  return digit === null ? null : 25 + digit;
}

/** Group 1 of every ANSWER: the solver's parse sees: the strict pattern's, else the loose one's. */
function answerMatches(completion: string): string[] {
  const strict = findall(STRICT, completion) as string[];
  return strict.length > 0 ? strict : (findall(LOOSE, completion) as string[]);
}

/** The letters multiple_choice would mark as chosen (empty: nothing parsed). */
export function parseChoiceAnswers(completion: string, choiceCount: number, multipleCorrect: boolean): Set<string> {
  const matches = answerMatches(completion);
  if (matches.length === 0) return new Set();
  const matched = pyUpper(pyStrip(matches[matches.length - 1]!).replace(/\.+$/, ''));
  const allowed = new Set(Array.from({ length: choiceCount }, (_, i) => answerCharacter(i)));
  if (multipleCorrect) {
    const compact = matched.replaceAll(' AND ', ',').replaceAll(' ', '');
    const byComma = new Set(compact.split(',').filter((x) => x !== ''));
    if ([...byComma].every((x) => allowed.has(x))) return byComma;
    const byChar = new Set(compact);
    if ([...byChar].every((x) => allowed.has(x))) return byChar;
    return new Set();
  }
  const tokens = matched.split(',').filter((t) => t !== '');
  return tokens.length === 1 && allowed.has(tokens[0]!) ? new Set(tokens) : new Set();
}

/**
 * Score as `choice()` would have with the solver's flags. `targets` is the
 * Target list; its concatenated text gives the target letters.
 */
export function choiceScore(completion: string, targets: readonly string[], choiceCount: number, multipleCorrect = false): InspectScore {
  const chosen = parseChoiceAnswers(completion, choiceCount, multipleCorrect);
  const selected = [...chosen].map(answerIndex).filter((i): i is number => i !== null && i < choiceCount).sort((a, b) => a - b);
  const targetPositions: number[] = [];
  for (const ch of targets.join('')) {
    if (ch === ',' || ch === ' ') continue;
    const index = answerIndex(ch);
    if (index !== null) targetPositions.push(index);
  }
  targetPositions.sort((a, b) => a - b);
  const same = selected.length === targetPositions.length && selected.every((v, i) => v === targetPositions[i]);
  return { value: same ? 'C' : 'I', answer: selected.map(answerCharacter).join(', '), explanation: completion };
}

/** What `inspect score --scorer choice` records on a log: the flags are gone, so nothing is selected. */
export function choiceScoreWithoutFlags(completion: string, targets: readonly string[]): InspectScore {
  const anyTarget = [...targets.join('')].some((ch) => ch !== ',' && ch !== ' ');
  return { value: anyTarget ? 'I' : 'C', answer: '', explanation: completion };
}

/**
 * The multiple_choice parse-rule changes (reference §6.9) that can change this completion's parse, for a log written
 * before 0.3.260: each rule differs only on an answer with the feature it names, so a completion without an ANSWER:
 * line, or whose one answer is a single upper-case letter, is parsed alike by every release.
 */
export function choiceRuleChangesThatApply(completion: string): string[] {
  const matches = answerMatches(completion);
  if (matches.length === 0) return [];
  const changes: string[] = [];
  const distinct = new Set(matches.map((m) => pyStrip(m)));
  if (distinct.size > 1) changes.push('before 0.3.221 the first ANSWER: was read, now the last');
  if (matches.some((m) => pyUpper(m) !== m)) changes.push('before 0.3.221 the answer was not upper-cased (a lower-case letter was refused) and " and " was removed, not read as a comma');
  if (matches.some((m) => m.includes(','))) changes.push('before 0.3.259 an empty token (a trailing comma) failed a multiple answer, and before 0.3.260 a single answer had to be exactly one letter (no stray comma)');
  return changes;
}
