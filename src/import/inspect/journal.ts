/**
 * A `.eval` without header.json is an eval that was running or crashed. Like
 * Inspect's own reader, the header is rebuilt from `_journal/start.json` (status
 * "started", no results) plus the journalled config updates in order, and the
 * summaries from `_journal/summaries/<n>.json`, keeping the last row per (id, epoch).
 */
import { BadInputError } from '../../errors.ts';
import { isPlainObject } from '../../util/json.ts';
import { readMemberJson, type EvalArchive } from './evalArchive.ts';
import type { Json } from './migrate.ts';

/** Where a summary was read: its member and its index in that member's list (for an error that names it). */
export interface SummaryPlace {
  member: string;
  index: number;
}

function numbered(names: readonly string[], prefix: string): string[] {
  const pattern = new RegExp(`^${prefix.replace(/\//g, '\\/')}(\\d+)\\.json$`);
  return names
    .map((name) => ({ name, n: pattern.exec(name)?.[1] }))
    .filter((e): e is { name: string; n: string } => e.n !== undefined)
    .sort((a, b) => Number(a.n) - Number(b.n))
    .map((e) => e.name);
}

export async function rebuildFromJournal(archive: EvalArchive): Promise<{ header: Json; summaries: Json[]; summaryPlaces: SummaryPlace[] }> {
  const start = await readMemberJson(archive, '_journal/start.json');
  if (!isPlainObject(start) || !isPlainObject(start.eval)) {
    throw new BadInputError("expected a LogStart object with an 'eval' field", { file: archive.path, member: '_journal/start.json' });
  }
  const configUpdates: unknown[] = [];
  for (const name of numbered(archive.names, '_journal/config_updates/')) configUpdates.push(await readMemberJson(archive, name));
  const header: Json = { version: start.version ?? 2, status: 'started', eval: start.eval, plan: start.plan ?? {} };
  if (configUpdates.length > 0) header.config_updates = configUpdates;

  const byKey = new Map<string, { row: Json; place: SummaryPlace }>();
  for (const name of numbered(archive.names, '_journal/summaries/')) {
    const rows = await readMemberJson(archive, name);
    if (!Array.isArray(rows)) throw new BadInputError('expected a JSON array of sample summaries', { file: archive.path, member: name });
    rows.forEach((row: unknown, index) => {
      if (!isPlainObject(row)) return;
      const key = `${typeof row.id}:${String(row.id)}\u001f${String(row.epoch)}`;
      byKey.delete(key);
      byKey.set(key, { row, place: { member: name, index } });
    });
  }
  const kept = [...byKey.values()];
  return { header, summaries: kept.map((k) => k.row), summaryPlaces: kept.map((k) => k.place) };
}
