/**
 * `--extractors as-recorded`: the source's own scoring rules re-applied to the
 * stored raw outputs and compared with the values the source recorded. Each
 * source kind has its own reproducer; this table is the one dispatch point.
 */
import type { OpenStore } from '../store/readStore.ts';
import type { AgentSourceKind, RunProvenance } from '../store/schema.ts';
import { lmevalAsRecordedSections, type AsRecordedCell } from './lmeval/asRecorded.ts';
import { rescoreInspectAsRecorded, type InspectRescoreCell } from './inspect/rescore.ts';
import { agentAsRecordedSections, type AgentAsRecordedCell } from './agents/asRecorded.ts';
import { eeeAsRecordedSections, type EeeAsRecordedCell } from './eee/asRecorded.ts';
import { pushTo } from '../util/groupBy.ts';
import { resultsAsRecordedSections, type ResultsAsRecordedSection } from './results/readScores.ts';

/** One run's reproduction; `cells` are in the shape of the reproducer its source kind dispatches to. */
interface SectionOf<Kind extends RunProvenance['source_kind'], Cell> {
  run_id: string;
  source_kind: Kind;
  /** Reproduced cells, per metric and filter (lm-eval), scorer (Inspect) or summary quantity (agents). */
  cells: Cell[];
  note: string | null;
  /** Per task with numbers and no reproduced cell, why (lm-eval's sections; the note says it of all of them at once). */
  task_notes?: Record<string, string>;
}

export type AsRecordedSection =
  // `lmaudit run` records lm-eval's rules; its cells have lm-eval's shape.
  | SectionOf<'lm-eval' | 'lmaudit', AsRecordedCell>
  | SectionOf<'inspect', InspectRescoreCell>
  | SectionOf<'generic', never>
  | SectionOf<'eee', EeeAsRecordedCell>
  | SectionOf<AgentSourceKind, AgentAsRecordedCell>
  | ResultsAsRecordedSection;

type Reproducer = (store: OpenStore, runIds: readonly string[]) => Promise<AsRecordedSection[]>;

const nothingRecorded = (kind: 'generic'): Reproducer => async (_store, runIds) =>
  runIds.map((run_id) => ({
    run_id,
    source_kind: kind,
    cells: [],
    note: 'the source recorded no scoring rules or per-item scores, so there is nothing to reproduce',
  }));

const inspect: Reproducer = async (store, runIds) => {
  const cells = await rescoreInspectAsRecorded(store);
  return runIds.map((run_id) => {
    const own = cells.filter((c) => c.run_id === run_id);
    return { run_id, source_kind: 'inspect' as const, cells: own, note: own.length === 0 ? 'the log recorded no scores' : null };
  });
};

const REPRODUCERS: Record<RunProvenance['source_kind'], Reproducer> = {
  // `lmaudit run` records lm-eval's rules (task config, filters, metrics) and its per-sample values.
  lmaudit: (store, runIds) => lmevalAsRecordedSections(store, runIds, 'lmaudit'),
  generic: nothingRecorded('generic'),
  'lm-eval': lmevalAsRecordedSections,
  inspect,
  eee: eeeAsRecordedSections,
  swebench: agentAsRecordedSections,
  'terminal-bench': agentAsRecordedSections,
  harbor: agentAsRecordedSections,
  helm: resultsAsRecordedSections,
  lighteval: resultsAsRecordedSections,
  opencompass: resultsAsRecordedSections,
};

export async function rescoreAsRecorded(store: OpenStore): Promise<AsRecordedSection[]> {
  const byKind = new Map<RunProvenance['source_kind'], string[]>();
  for (const run of store.manifest.runs) pushTo(byKind, run.source_kind, run.run_id);
  const sections: AsRecordedSection[] = [];
  for (const [kind, runIds] of byKind) sections.push(...(await REPRODUCERS[kind](store, runIds)));
  return sections;
}
