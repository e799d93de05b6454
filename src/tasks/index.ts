/**
 * The task index (lm-eval's TaskIndex/TaskManager, lmeval-prompts.md §3.4–3.5): every
 * `.yaml` file below the roots, sorted by path, classified as group, task or template
 * fragment; `tag:` entries collect tasks. Names resolve to leaf task configs, with
 * group overrides applied. The first file in sorted order wins within a root; later
 * roots (`--include_path`) override earlier ones.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BadInputError, UnknownNameError } from '../errors.ts';
import { GROUP_KEYS, checkKeys, toTaskConfig, type TaskConfig } from './config.ts';
import { loadYamlWithIncludes, type ParseCache } from './include.ts';

export interface GroupNode {
  group: string;
  group_alias: string | null;
  children: (GroupNode | string)[];
  aggregate_metric_list: Record<string, unknown>[] | null;
  metadata: Record<string, unknown> | null;
  source: string;
}

export interface ResolvedTasks {
  /** Leaf tasks in load order (a task reached twice is kept once). */
  tasks: TaskConfig[];
  /** Groups named on the command line or reached through them. */
  groups: GroupNode[];
}

type Entry = { kind: 'task' | 'group'; file: string; raw: Record<string, unknown> };

/** One name the index knows, as `lmaudit tasks` lists it. */
export interface CatalogueEntry {
  name: string;
  kind: 'task' | 'group' | 'tag';
  /** A task's output_type (lm-eval's default generate_until when unset); a group's or tag's: its tasks' types, sorted. */
  outputType: string;
  /** A task's num_fewshot as written (lm-eval reads an unset one as 0); null for groups and tags. */
  numFewshot: number | null;
  /** The YAML file (a tag: the files of its tasks are listed under them). */
  file: string | null;
  /** A group's children as written, a tag's tasks. */
  members: string[];
}

/** The shipped task library: `tasks/` beside `src/` (running from source) or beside `dist/` (bundled). */
export function shippedTasksRoot(): string {
  for (const rel of ['../../tasks', '../tasks']) {
    const path = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(join(path, 'mmlu'))) return path;
  }
  throw new BadInputError('the shipped task library (tasks/) was not found next to lmaudit');
}

function yamlFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      if (name === '__pycache__' || name === '.ipynb_checkpoints') continue;
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.yaml')) out.push(path);
    }
  };
  walk(dir);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * lm-eval 0.4.13's TaskIndex._kind_of makes any mapping with a `group` key a group, and builds its members only from
 * a `task` list. One exception is kept: a task file of lm-eval before 0.4.3, where `group:` was a tag (its `task` a
 * name and its other keys a task's), still reads as that task, so that old runs' prompts can be rebuilt; lm-eval
 * 0.4.13 would build no task from it.
 */
function isGroupConfig(raw: Record<string, unknown>): boolean {
  if (typeof raw.group !== 'string') return false;
  if (Array.isArray(raw.task)) return true;
  return Object.keys(raw).every((k) => (GROUP_KEYS as readonly string[]).includes(k) || k === 'tag');
}

/** A group's children by name (an inline child by its task or group name). */
function memberNames(raw: Record<string, unknown>): string[] {
  if (!Array.isArray(raw.task)) return [];
  return (raw.task as unknown[]).map((c) => (typeof c === 'string' ? c : String((c as { task?: unknown }).task ?? (c as { group?: unknown }).group ?? '<inline>')));
}

export class TaskIndex {
  private readonly entries = new Map<string, Entry>();
  private readonly tags = new Map<string, Set<string>>();
  private readonly parsed: ParseCache = new Map();

  /** Tasks lm-eval defines by a Python class (`class: !function …`): indexed, so that naming one says why it cannot run. */
  private readonly pythonTasks = new Map<string, string>();

  /** Task files that could not be read (malformed YAML, an alias bomb), kept for the unknown-name message. */
  private readonly broken: BadInputError[] = [];

  constructor(readonly roots: readonly string[]) {
    for (const root of roots) this.indexRoot(resolve(root));
  }

  /** The YAML files that could not be read (each error names its file and line): a listing says so rather than leave them out. */
  unreadable(): readonly BadInputError[] {
    return this.broken;
  }

  static withShipped(includePaths: readonly string[] = []): TaskIndex {
    return new TaskIndex([shippedTasksRoot(), ...includePaths.map((p) => resolve(p))]);
  }

  private indexRoot(root: string): void {
    if (!existsSync(root)) throw new BadInputError('task folder not found', { file: root });
    if (!statSync(root).isDirectory()) throw new BadInputError('not a folder: --include_path takes folders of task YAML files (a YAML file itself goes to --tasks)', { file: root });
    const seenHere = new Set<string>();
    for (const file of yamlFiles(root)) this.addFile(file, seenHere);
  }

  private addFile(file: string, seenHere: Set<string>): void {
    let raw;
    try {
      raw = loadYamlWithIncludes(file, [], this.parsed);
    } catch (error) {
      // One broken file must not block the tasks of the others; a name it might define says so.
      if (!(error instanceof BadInputError)) throw error;
      this.broken.push(error);
      return;
    }
    if ('class' in raw) {
      if (typeof raw.task === 'string' && !seenHere.has(raw.task)) {
        seenHere.add(raw.task);
        this.entries.delete(raw.task);
        this.pythonTasks.set(raw.task, file);
      }
      return;
    }
    const isGroup = isGroupConfig(raw);
    const name = isGroup ? raw.group : raw.task;
    const kind = isGroup ? 'group' : 'task';
    if (typeof name !== 'string') return;
    if (seenHere.has(name)) return;
    seenHere.add(name);
    this.entries.set(name, { kind, file, raw });
    this.pythonTasks.delete(name);
    if (kind === 'task') {
      const tags = raw.tag === undefined || raw.tag === null ? [] : Array.isArray(raw.tag) ? raw.tag : [raw.tag];
      for (const tag of tags.map(String)) {
        if (!this.tags.has(tag)) this.tags.set(tag, new Set());
        this.tags.get(tag)!.add(name);
      }
    }
  }

  /** Every task, group and tag, by name; a name a later root overrides is listed once, from that root. */
  catalogue(): CatalogueEntry[] {
    const taskType = (name: string): string | null => {
      const e = this.entries.get(name);
      return e?.kind === 'task' ? String(e.raw.output_type ?? 'generate_until') : null;
    };
    // A group's members may be groups and tags: their leaf tasks' types are the group's.
    const leafTypes = (name: string, seen: Set<string>): string[] => {
      if (seen.has(name)) return [];
      seen.add(name);
      const own = taskType(name);
      if (own !== null) return [own];
      const e = this.entries.get(name);
      const members = e?.kind === 'group' ? memberNames(e.raw) : [...(this.tags.get(name) ?? [])];
      return members.flatMap((m) => leafTypes(m, seen));
    };
    const typesOf = (members: readonly string[]) => {
      const seen = new Set<string>();
      return [...new Set(members.flatMap((m) => leafTypes(m, seen)))].sort().join(', ');
    };
    const out: CatalogueEntry[] = [];
    for (const [name, e] of this.entries) {
      if (e.kind === 'task') {
        const n = e.raw.num_fewshot;
        out.push({ name, kind: 'task', outputType: taskType(name)!, numFewshot: typeof n === 'number' ? n : 0, file: e.file, members: [] });
      } else {
        const members = memberNames(e.raw);
        out.push({ name, kind: 'group', outputType: typesOf(members), numFewshot: null, file: e.file, members });
      }
    }
    for (const [name, tasks] of this.tags) {
      if (this.entries.has(name)) continue;
      const members = [...tasks].sort();
      out.push({ name, kind: 'tag', outputType: typesOf(members), numFewshot: null, file: null, members });
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  names(): string[] {
    return [...this.entries.keys(), ...this.tags.keys()].sort();
  }

  /** Resolves task, group and tag names, or paths to task YAML files, into leaf task configs. */
  resolve(names: readonly string[]): ResolvedTasks {
    const out: ResolvedTasks = { tasks: [], groups: [] };
    const seen = new Set<string>();
    const addTask = (config: TaskConfig): void => {
      if (seen.has(config.task)) return;
      seen.add(config.task);
      out.tasks.push(config);
    };
    // lm-eval's TaskManager._check_duplicates: a leaf task may come from one requested item only (a group is its
    // leaves' source; a task, or each task of a tag, its own), else the run is refused before anything is built.
    const sourceOf = new Map<string, string>();
    for (const name of names) {
      const reached: string[] = [];
      const result = this.resolveOne(name, {}, (c) => {
        reached.push(c.task);
        addTask(c);
      }, out.groups);
      for (const task of reached) {
        const source = result !== null && typeof result === 'object' ? result.group : task;
        const prior = sourceOf.get(task);
        if (prior !== undefined && prior !== source) {
          throw new BadInputError(`duplicate task '${task}': found in both '${prior}' and '${source}' (lm-eval refuses a task that two of the requested tasks or groups hold)`, { field: '--tasks' });
        }
        sourceOf.set(task, source);
      }
    }
    return out;
  }

  private resolveOne(
    name: string | Record<string, unknown>,
    overrides: Record<string, unknown>,
    addTask: (c: TaskConfig) => void,
    groups: GroupNode[],
    parent: GroupNode | null = null,
  ): GroupNode | string | null {
    if (typeof name !== 'string') return this.resolveInline(name, overrides, addTask, groups, parent);
    if (/\.ya?ml$/i.test(name) && existsSync(name)) {
      const raw = loadYamlWithIncludes(name);
      return this.resolveRaw(raw, resolve(name), overrides, addTask, groups);
    }
    const entry = this.entries.get(name);
    if (entry !== undefined) return this.resolveRaw(entry.raw, entry.file, overrides, addTask, groups);
    const tagged = this.tags.get(name);
    if (tagged !== undefined) {
      for (const task of [...tagged].sort()) this.resolveOne(task, overrides, addTask, groups);
      return name;
    }
    const pythonTask = this.pythonTasks.get(name);
    if (pythonTask !== undefined) {
      throw new BadInputError(`task '${name}' is defined by a Python class (class: ...), which lmaudit cannot run: it runs YAML task definitions only`, { file: pythonTask, field: 'class' });
    }
    if (this.broken.length > 0) {
      const listed = this.broken.map((e) => `\n  ${e.message}`).join('');
      throw new BadInputError(`unknown task '${name}'; ${this.broken.length} task file(s) could not be read, and one of them may define it:${listed}`);
    }
    // A YAML path is a file, not a name: the list of known names would not say that the file is missing.
    if (/\.ya?ml$/i.test(name)) throw new BadInputError('no such task YAML file (--tasks takes task, group or tag names, or the path of a task YAML)', { file: name, field: '--tasks' });
    throw new UnknownNameError('task', name, this.names());
  }

  /**
   * A mapping in a group's `task:` list, as lm-eval 0.4.13's TaskFactory._build_group_members reads it: one that names
   * an indexed task or group overrides its config, its own keys winning over the group's; any other is defined
   * inline, its name prefixed with the group's (`<group>::<name>`).
   */
  private resolveInline(
    raw: Record<string, unknown>,
    overrides: Record<string, unknown>,
    addTask: (c: TaskConfig) => void,
    groups: GroupNode[],
    parent: GroupNode | null,
  ): GroupNode | string | null {
    const itemOverrides = { ...overrides, ...raw };
    if (typeof raw.group === 'string') {
      const named = this.entries.get(raw.group);
      if (named?.kind === 'group') {
        delete itemOverrides.group;
        return this.resolveRaw(named.raw, named.file, itemOverrides, addTask, groups);
      }
      const inline = parent === null ? raw : { ...raw, group: `${parent.group}::${raw.group}` };
      return this.resolveRaw(inline, parent?.source ?? '<inline>', overrides, addTask, groups);
    }
    const base = typeof raw.task === 'string' ? this.entries.get(raw.task) : undefined;
    if (base?.kind === 'task') return this.resolveRaw(base.raw, base.file, itemOverrides, addTask, groups);
    if (typeof raw.task === 'string' && parent !== null && base === undefined) itemOverrides.task = `${parent.group}::${raw.task}`;
    return this.resolveRaw(itemOverrides, parent?.source ?? '<inline>', {}, addTask, groups);
  }

  private resolveRaw(
    raw: Record<string, unknown>,
    file: string,
    overrides: Record<string, unknown>,
    addTask: (c: TaskConfig) => void,
    groups: GroupNode[],
  ): GroupNode | string {
    if (isGroupConfig(raw)) return this.resolveGroup(raw, file, overrides, addTask, groups);
    const config = { ...raw, ...overrides };
    delete config.group;
    delete config.task_list;
    const task = toTaskConfig(config, file);
    addTask(task);
    return task.task;
  }

  private resolveGroup(
    raw: Record<string, unknown>,
    file: string,
    overrides: Record<string, unknown>,
    addTask: (c: TaskConfig) => void,
    groups: GroupNode[],
  ): GroupNode {
    const groupFields: Record<string, unknown> = {};
    const ownOverrides: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(raw)) {
      if ((GROUP_KEYS as readonly string[]).includes(key)) groupFields[key] = value;
      else ownOverrides[key] = value;
    }
    // lm-eval's TaskFactory._build_group: the caller's overrides (an enclosing group's) win over this group's own keys.
    const childOverrides = { ...ownOverrides, ...overrides };
    checkKeys(groupFields, GROUP_KEYS, file);
    if (!Array.isArray(raw.task)) {
      // lm-eval builds a group's members only from a list (TaskFactory._build_group), so it runs nothing for this one.
      throw new BadInputError(
        `group '${String(raw.group)}': \`task\` must be a list of tasks (lm-eval 0.4.13 reads a file with a \`group\` key as a group and builds no task from a \`task\` that is not a list)`,
        { file, field: 'task' },
      );
    }
    const node: GroupNode = {
      group: String(raw.group),
      group_alias: typeof raw.group_alias === 'string' ? raw.group_alias : null,
      children: [],
      aggregate_metric_list: (raw.aggregate_metric_list as Record<string, unknown>[]) ?? null,
      metadata: (raw.metadata as Record<string, unknown>) ?? null,
      source: file,
    };
    groups.push(node);
    for (const child of raw.task as (string | Record<string, unknown>)[]) {
      const resolved = this.resolveOne(child, childOverrides, addTask, groups, node);
      if (resolved !== null) node.children.push(resolved);
    }
    return node;
  }
}
