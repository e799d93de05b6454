/**
 * `regex:<pattern>[:group]`: lm-eval's regex filter as an extractor. The pattern is
 * Python `re` syntax (as task YAML writes it), translated faithfully or refused;
 * the answer is findall()[group] (Python indexing, default 0), a tuple's first
 * non-empty member, stripped. A trailing `:<integer>` is the group; a pattern that
 * itself ends in `:<digits>` needs an explicit `:0`.
 */
import { BadInputError } from '../errors.ts';
import { pyStrip } from '../py/str.ts';
import { compilePython } from '../py/re.ts';
import { boundedFindall } from '../util/regexBudget.ts';
import { spanExtractor, type Extractor } from './types.ts';

export function regexExtractor(argument: string): Extractor {
  const tail = /:(-?\d+)$/.exec(argument);
  const pattern = tail === null ? argument : argument.slice(0, tail.index);
  const groupSelect = tail === null ? 0 : Number(tail[1]);
  if (pattern === '') throw new BadInputError('regex: needs a pattern, as regex:<pattern>[:group]', { field: 'extractors' });
  const compiled = compilePython(pattern);
  return spanExtractor(
    `regex:${argument}`,
    `findall(${JSON.stringify(pattern)})[${groupSelect}], first non-empty group, stripped (lm-eval regex filter)`,
    (text) => {
      const found = boundedFindall(compiled, text);
      const index = groupSelect < 0 ? found.length + groupSelect : groupSelect;
      const hit = found[index];
      if (hit === undefined) return null;
      const value = typeof hit === 'string' ? hit : hit.find((g) => g !== '');
      return value === undefined ? null : pyStrip(value);
    },
  );
}
