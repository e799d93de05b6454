/**
 * A falsifier declared up front (audits/falsifiers/*.yaml): the claim, the
 * settings that must agree, and optionally what the paired statistics must
 * show. `diff` and `report` evaluate it against the diff; a violated
 * declared falsifier is the one audit finding that exits with code 1.
 *
 *   claim: "batch size does not move asdiv accuracy"
 *   must_agree: [fewshot, chat_template, scoring, model.dtype]   # clause names or item.field
 *   same_documents: true
 *   score: acc,none                 # the paired score the conditions below read
 *   max_abs_difference: 0.02        # |B − A| on the shared items
 *   indistinguishable: true         # the paired test must not separate A and B
 *   unknown_is_violation: false     # an unknown clause fails the falsifier
 */
import { readFile } from 'node:fs/promises';
import { load } from 'js-yaml';
import * as z from '../util/zod.ts';
import { BadInputError } from '../errors.ts';
import { AGENT_FIELDS, DISCLOSURE_FIELDS } from '../store/schema.ts';
import type { DiffResult, TaskComparison } from './diff.ts';
import { pairedScoreLabel } from './pairedAggregation.ts';
import { AGENT_CLAUSES, DEFAULT_CLAUSES, evaluateClause, type Clause, type ClauseSpec, type ClauseStatus } from './falsifier.ts';

export const DeclaredFalsifierSpec = z.strictObject({
  claim: z.string().check(z.minLength(1)),
  must_agree: z._default(z.array(z.string().check(z.minLength(1))), []),
  same_documents: z._default(z.boolean(), false),
  score: z.optional(z.string()),
  max_abs_difference: z.optional(z.number().check(z.nonnegative())),
  indistinguishable: z.optional(z.boolean()),
  unknown_is_violation: z._default(z.boolean(), false),
});
export type DeclaredFalsifierSpec = z.infer<typeof DeclaredFalsifierSpec>;

export interface DeclaredFalsifierResult {
  file: string;
  claim: string;
  status: ClauseStatus;
  /** Per task comparison, the clauses and their statuses. */
  clauses: (Clause & { task: string })[];
  sentence: string;
}

export async function loadDeclaredFalsifier(file: string): Promise<DeclaredFalsifierSpec> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new BadInputError(`cannot read the falsifier file (${(error as Error).message})`, { file });
  }
  let raw: unknown;
  try {
    raw = load(text);
  } catch (error) {
    throw new BadInputError(`not valid YAML (${(error as Error).message.split('\n')[0]})`, { file });
  }
  const parsed = DeclaredFalsifierSpec.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BadInputError(issue.message, { file, field: issue.path.join('.') || undefined });
  }
  for (const name of parsed.data.must_agree) clauseFor(name, file);
  return parsed.data;
}

/** A `must_agree` entry: a default clause by name, or one disclosure field as 'item.field'. */
function clauseFor(name: string, file: string): ClauseSpec {
  const known = [...DEFAULT_CLAUSES, ...AGENT_CLAUSES].find((c) => c.name === name);
  if (known !== undefined) return known;
  const [item, field] = name.split('.');
  const fields = ({ ...DISCLOSURE_FIELDS, agent: AGENT_FIELDS } as Record<string, readonly string[]>)[item ?? ''];
  if (fields !== undefined && field !== undefined && fields.includes(field)) {
    return { name, phrase: name.replace('.', ' ').replace(/_/g, ' '), fields: [name], checks: [] };
  }
  throw new BadInputError(
    `unknown clause or field '${name}' (clauses: ${[...DEFAULT_CLAUSES, ...AGENT_CLAUSES].map((c) => c.name).join(', ')}; or a disclosure field as item.field, e.g. model.dtype or agent.timeouts)`,
    { file, field: 'must_agree' },
  );
}

function statsClauses(spec: DeclaredFalsifierSpec, t: TaskComparison): Clause[] {
  const out: Clause[] = [];
  if (spec.same_documents) {
    const c = evaluateClause({ name: 'documents', phrase: 'document sets', fields: [], checks: [], items: 'documents' }, t.settings, null, t.items && { shared: t.items.shared, onlyA: t.items.onlyA, onlyB: t.items.onlyB, promptsDiffer: t.items.differences.promptsDiffer });
    out.push(t.items === null ? { ...c, status: 'unknown', finding: 'no per-item samples to compare' } : c);
  }
  if (spec.max_abs_difference === undefined && spec.indistinguishable === undefined) return out;
  const paired = spec.score !== undefined ? t.paired.find((p) => p.score === spec.score) : t.paired[0];
  // What B − A is a difference of, where it is not the score's own aggregate: perplexity,none (mean log-likelihood).
  const label = paired !== undefined ? pairedScoreLabel(paired) : (spec.score ?? 'the first shared score');
  if (paired === undefined) {
    out.push({ name: 'statistics', phrase: `paired statistics on ${label}`, status: 'unknown', finding: t.pairedNote ?? `no paired score ${label}` });
    return out;
  }
  const r = paired.result;
  if (spec.max_abs_difference !== undefined) {
    const ok = Math.abs(r.difference) <= spec.max_abs_difference;
    out.push({ name: 'max_abs_difference', phrase: `a difference in ${label} above ${spec.max_abs_difference}`, status: ok ? 'holds' : 'violated', finding: `|B − A| of ${label} = ${Number(Math.abs(r.difference).toPrecision(4))} on ${r.n} shared items (at most ${spec.max_abs_difference} declared)` });
  }
  if (spec.indistinguishable !== undefined) {
    const ok = r.distinguishable !== spec.indistinguishable;
    out.push({ name: 'indistinguishable', phrase: `a ${spec.indistinguishable ? 'distinguishable' : 'indistinguishable'} difference in ${label}`, status: ok ? 'holds' : 'violated', finding: r.sentence });
  }
  return out;
}

export function evaluateDeclared(file: string, spec: DeclaredFalsifierSpec, diff: DiffResult): DeclaredFalsifierResult {
  const clauses: (Clause & { task: string })[] = [];
  for (const comparison of diff.comparisons) {
    for (const t of comparison.tasks) {
      const coverage = t.items && { shared: t.items.shared, onlyA: t.items.onlyA, onlyB: t.items.onlyB, promptsDiffer: t.items.differences.promptsDiffer };
      for (const name of spec.must_agree) clauses.push({ ...evaluateClause(clauseFor(name, file), t.settings, t.checks, coverage), task: t.taskA });
      for (const c of statsClauses(spec, t)) clauses.push({ ...c, task: t.taskA });
    }
  }
  const violated = clauses.filter((c) => c.status === 'violated' || (spec.unknown_is_violation && c.status === 'unknown'));
  const status: ClauseStatus = violated.length > 0 ? 'violated' : clauses.some((c) => c.status === 'unknown') ? 'unknown' : 'holds';
  const sentence =
    `Declared falsifier (${file}): "${spec.claim}" ${status === 'violated' ? 'is VIOLATED' : status === 'unknown' ? 'cannot be fully checked' : 'holds'}` +
    (violated.length > 0 ? `: ${violated.slice(0, 5).map((c) => `${c.task}: ${c.finding}`).join('; ')}` : '') +
    (status === 'unknown' ? `: ${clauses.filter((c) => c.status === 'unknown').slice(0, 5).map((c) => `${c.task}: ${c.phrase} — ${c.finding}`).join('; ')}` : '') +
    '.';
  return { file, claim: spec.claim, status, clauses, sentence };
}
