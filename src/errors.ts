/**
 * The typed error hierarchy. Library code throws these; only `src/cli/exit.ts`
 * turns them into a message and an exit code (the command contract: 0 success,
 * 1 a declared falsifier failed, 2 bad input).
 */

/** Where in an input a problem sits: file, then line or archive member, then field. */
export interface InputLocation {
  file?: string;
  line?: number;
  member?: string;
  field?: string;
}

export abstract class LmauditError extends Error {
  abstract readonly code: string;
  abstract readonly exitCode: 1 | 2 | 3;
}

/** Input we cannot accept: malformed, missing, wrongly typed, unreadable, hostile. */
export class BadInputError extends LmauditError {
  readonly code = 'bad_input';
  readonly exitCode = 2 as const;
  constructor(
    readonly detail: string,
    readonly where: InputLocation = {},
    options?: { cause?: unknown },
  ) {
    super(`${formatLocation(where)}${detail}`, options);
  }
}

/** A name that is not in a registry (backend, filter, extractor…), with close matches. */
export class UnknownNameError extends LmauditError {
  readonly code = 'unknown_name';
  readonly exitCode = 2 as const;
  constructor(
    readonly kind: string,
    readonly name: string,
    readonly known: readonly string[],
  ) {
    super(`Unknown ${kind} '${name}'.${nameHint(name, known)}`);
  }
}

/** The run store is missing, of another schema version, or would be damaged by the request. */
export class StoreError extends LmauditError {
  readonly code = 'store';
  readonly exitCode = 2 as const;
}

/** A declared falsifier was violated: the audit finding the user asked to fail on. */
export class FalsifierViolatedError extends LmauditError {
  readonly code = 'falsifier_violated';
  readonly exitCode = 1 as const;
}

/** A behaviour the reference harness defines that we cannot reproduce faithfully (e.g. a regex RE2 and JS both lack). */
export class UnsupportedError extends LmauditError {
  readonly code = 'unsupported';
  readonly exitCode = 2 as const;
}

/** The model backend failed during a run; what was recorded stays in the store, and the run can be resumed. */
export class BackendError extends LmauditError {
  readonly code = 'backend_failed';
  readonly exitCode = 3 as const;
}

export function formatLocation(where: InputLocation): string {
  const parts: string[] = [];
  if (where.file !== undefined) parts.push(where.file);
  if (where.member !== undefined) parts.push(`member ${where.member}`);
  if (where.line !== undefined) parts.push(`line ${where.line}`);
  if (where.field !== undefined) parts.push(`field '${where.field}'`);
  return parts.length > 0 ? `${parts.join(', ')}: ` : '';
}

/** What follows "unknown <kind> '<name>'.": the close names ("Did you mean: …?"), else every known one. */
export function nameHint(name: string, known: readonly string[]): string {
  const close = closestNames(name, known);
  return close.length > 0 ? ` Did you mean: ${close.join(', ')}?` : ` Known: ${known.join(', ')}.`;
}

/** " Did you mean: x?" for a value close to one of a flag's fixed values, else nothing (the message lists them). */
export function didYouMean(name: string, known: readonly string[]): string {
  const close = closestNames(name, known);
  return close.length > 0 ? ` Did you mean: ${close.join(', ')}?` : '';
}

/** Names within edit distance 2 (or sharing a prefix of 3), best first, at most 3. */
export function closestNames(name: string, known: readonly string[]): string[] {
  return known
    .map((k) => ({ k, d: editDistance(name.toLowerCase(), k.toLowerCase()) }))
    .filter(({ k, d }) => d <= 2 || (name.length >= 3 && k.toLowerCase().startsWith(name.toLowerCase().slice(0, 3))))
    .sort((a, b) => a.d - b.d)
    .slice(0, 3)
    .map(({ k }) => k);
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}
