/**
 * lm-eval's `load_yaml` include resolution (lmeval-prompts.md §3.3): `include` paths
 * resolve against the directory of the file that names them; included files are
 * merged in list order (later wins, `task_list` dropped), then the file's own keys win.
 * The merge is top-level only. One "seen" set is shared by the whole recursion, so a
 * diamond (one file reached twice) is reported as a cycle, as lm-eval does.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { BadInputError } from '../errors.ts';
import { parseYamlFile, parseYamlFileWithLines } from './yaml.ts';

/**
 * Parsed files, so a template included by many tasks (57 MMLU subjects share one) is
 * parsed once per index. Callers get a shallow copy; nested values are never mutated.
 */
export type ParseCache = Map<string, Record<string, unknown>>;

function parseCached(path: string, cache: ParseCache | undefined): Record<string, unknown> {
  let parsed = cache?.get(path);
  if (parsed === undefined) {
    parsed = parseYamlFile(path);
    cache?.set(path, parsed);
  }
  return { ...parsed };
}

export function loadYamlWithIncludes(file: string, seen: string[] = [], cache?: ParseCache): Record<string, unknown> {
  const path = resolve(file);
  if (seen.includes(path)) {
    throw new BadInputError(`include cycle: ${[...seen, path].join(' -> ')}`, { file: seen.at(-1) ?? path, field: 'include' });
  }
  seen.push(path);
  const own = parseCached(path, cache);
  if (!('include' in own)) return own;
  const include = own.include;
  delete own.include;
  const list = typeof include === 'string' ? [include] : include;
  if (!Array.isArray(list) || list.some((x) => typeof x !== 'string')) {
    throw new BadInputError('include must be a path or a list of paths', { file: path, field: 'include' });
  }
  const merged: Record<string, unknown> = {};
  for (const name of list as string[]) {
    const target = resolve(dirname(path), name);
    if (!existsSync(target)) throw new BadInputError(`included file not found: ${name}`, { file: path, field: 'include' });
    const included = loadYamlWithIncludes(target, seen, cache);
    delete included.task_list;
    Object.assign(merged, included);
  }
  return Object.assign(merged, own);
}

/**
 * Where a task file's field is written, for errors: the file itself or, through its `include`s (the last one that
 * sets the key wins, as in the merge), the file that sets it, and the line of the top-level key (`fewshot_config.x`
 * is found at `fewshot_config`). Only the file is known when no file sets it (a group's override, an inline task).
 */
export function fieldLocation(file: string, field: string): { file: string; line?: number; field: string } {
  const key = field.split('.')[0]!;
  const seen = new Set<string>();
  const find = (path: string): { file: string; line?: number } | null => {
    if (seen.has(path) || !existsSync(path)) return null;
    seen.add(path);
    let parsed: Record<string, unknown>;
    let lines: Map<string, number>;
    try {
      ({ value: parsed, lines } = parseYamlFileWithLines(path));
    } catch {
      return null;
    }
    if (key in parsed) return { file: path, line: lines.get(key) };
    const include = parsed.include;
    const list = typeof include === 'string' ? [include] : Array.isArray(include) ? include : [];
    for (const name of [...list].reverse()) {
      const found = typeof name === 'string' ? find(resolve(dirname(path), name)) : null;
      if (found !== null) return found;
    }
    return null;
  };
  return { ...(find(resolve(file)) ?? { file }), field };
}
