/**
 * Which fields of a generic record file hold the id, the output, the gold answer and the group:
 * named by --<role>-field, else the first of each role's usual names that the records have.
 */
import { BadInputError } from '../../errors.ts';
import type { FieldMap } from '../types.ts';

export const FIELD_CANDIDATES = {
  id: ['id', 'doc_id', 'sample_id', 'question_id', 'idx', 'uid'],
  output: ['output', 'raw_output', 'response', 'completion', 'prediction', 'model_output'],
  gold: ['gold', 'target', 'answer', 'label', 'reference'],
  group: ['group', 'subject', 'subtask', 'category'],
} as const;

export type ResolvedFields = { id: string | null; output: string; gold: string; group: string | null };

export function resolveFields(columns: readonly string[], flags: FieldMap, file: string): ResolvedFields {
  const pick = (role: keyof typeof FIELD_CANDIDATES, required: boolean): string | null => {
    const flagged = flags[role];
    if (flagged !== undefined) {
      if (!columns.includes(flagged)) {
        throw new BadInputError(`--${role}-field '${flagged}' is not a field of the records (fields: ${columns.join(', ')})`, { file, field: flagged });
      }
      return flagged;
    }
    const found = FIELD_CANDIDATES[role].find((c) => columns.includes(c)) ?? null;
    if (found === null && required) {
      throw new BadInputError(
        `no ${role} field: none of ${FIELD_CANDIDATES[role].join(', ')} is present (fields: ${columns.join(', ')}); name it with --${role}-field`,
        { file, line: 1, field: role },
      );
    }
    return found;
  };
  return { id: pick('id', false), output: pick('output', true)!, gold: pick('gold', true)!, group: pick('group', false) };
}
