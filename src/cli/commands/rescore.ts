import { dirname } from 'node:path';
import type { Command } from 'commander';
import { randomBytes } from 'node:crypto';
import { findImpossible, impossibleLines } from '../../audit/cannotBeRight.ts';
import { taskCode } from '../../audit/taskCode.ts';
import { loadSource } from '../../audit/source.ts';
import { BadInputError, didYouMean, nameHint } from '../../errors.ts';
import { computeMatrix, type MatrixSpec, type ScopeResult } from '../../score/matrix.ts';
import { AGGREGATIONS, type Aggregation } from '../../score/sweeps.ts';
import { AS_RECORDED, splitSpecs } from '../../score/registry.ts';
import type { AsRecordedSection } from '../../score/asRecorded.ts';
import { openRescoreWriter, openRescoreWriterAt, type RescoreWriter } from '../../store/writeStore.ts';
import { narrowToTasks } from '../../audit/narrow.ts';
import { addImportFlags, importOptionsFrom, type ImportFlags } from '../importFlags.ts';
import { companionLines, emit, outIs, unreadLines, warnIfUnfinished } from '../output.ts';
import { listFlag, someOf } from '../keyValueArgs.ts';
import { formatMatrix, formatAsRecorded, reportedWithoutRows } from '../formatMatrix.ts';
import { formatAgentSweeps } from '../formatAgentSweep.ts';
import { agentSweeps } from '../../score/agents/sweep.ts';

interface RescoreFlags extends ImportFlags {
  extractors?: string;
  normalizers?: string;
  aggregations?: string;
  json: boolean;
  out?: string | boolean;
  tasks?: string;
  flips: string;
  engine: string;
  bootstrap: string;
  seed: string;
}


export function registerRescore(program: Command): void {
  addImportFlags(
    program
      .command('rescore')
      .description('Rescore stored outputs under alternate extractors, normalisers and aggregations (no model call)')
      .argument('<sources...>', 'a run store, or anything `import` reads (imported on the fly)')
      .option('--extractors <names>', 'comma-separated extractors (default: the sweep for the answer type, from audits/); commas inside a regex pattern\'s brackets or escaped as \\, do not separate')
      .option('--normalizers <names>', 'comma-separated normalisers')
      .option('--aggregations <names>', `comma-separated aggregations (${AGGREGATIONS.join(', ')})`)
      .option('--flips <n>', 'how many flipping item ids to list per task', '20')
      .option('--engine <engine>', 'auto | sql | js (auto: DuckDB when every cell has an exact SQL form)', 'auto')
      .option('--bootstrap <iterations>', 'also a seeded stratified bootstrap of every cell (stderr and percentile interval)', '0')
      .option('--seed <n>', 'seed of the bootstrap (CPython random)', '1234')
      .option('--tasks <names>', 'only these tasks (comma-separated; * matches any text, as lm-eval\'s --tasks)')
      .option('--out [path]', "x.parquet: per-item results into that file; x.json: the JSON report; any other path: the printed text; bare --out: per-item results appended to the store's rescores/ folder")
      .option('--json', 'print one JSON object', false),
  ).action(async (sources: string[], flags: RescoreFlags) => {
    const aggregations = listFlag(flags.aggregations, '--aggregations');
    for (const a of aggregations ?? []) {
      if (!AGGREGATIONS.includes(a as Aggregation)) throw new BadInputError(`unknown aggregation '${a}'.${nameHint(a, AGGREGATIONS)}`, { field: '--aggregations' });
    }
    if (!['auto', 'sql', 'js'].includes(flags.engine)) throw new BadInputError(`--engine must be auto, sql or js, got '${flags.engine}'.${didYouMean(flags.engine, ['auto', 'sql', 'js'])}`, { field: '--engine' });
    const bootstrap = Number(flags.bootstrap);
    const bootstrapSeed = Number(flags.seed);
    if (!Number.isInteger(bootstrap) || bootstrap < 0) throw new BadInputError('--bootstrap must be a whole number of iterations', { field: '--bootstrap' });
    if (!Number.isInteger(bootstrapSeed)) throw new BadInputError('--seed must be an integer', { field: '--seed' });
    const flipsLimit = Number(flags.flips);
    if (!Number.isInteger(flipsLimit) || flipsLimit < 0) throw new BadInputError('--flips must be a whole number', { field: '--flips' });

    const loaded = await loadSource(sources, importOptionsFrom(flags), { goldFromDocuments: true });
    const source = { ...loaded, store: narrowToTasks(loaded.store, listFlag(flags.tasks, '--tasks')) };
    warnIfUnfinished(sources.join(', '), source.store);
    const intoStore = flags.out === true;
    const outPath = typeof flags.out === 'string' ? flags.out : undefined;
    const parquetOut = outIs(outPath, 'parquet') ? outPath : undefined;
    if (intoStore && !source.store.local) {
      throw new BadInputError('bare --out appends to a run store: import the source first (lmaudit import … --out <store>), or give --out <file>.parquet', { file: sources.join(', ') });
    }
    const extractors = flags.extractors === undefined ? undefined : someOf(splitSpecs(flags.extractors), flags.extractors, '--extractors');
    const wantsAsRecorded = extractors?.includes(AS_RECORDED) ?? false;
    const matrixExtractors = extractors?.filter((e) => e !== AS_RECORDED);
    if (wantsAsRecorded && flags.goldField !== undefined) {
      throw new BadInputError(`--gold-field does not apply to as-recorded, which re-applies the source's own rules to the golds it recorded; rescore with one or the other`, { field: '--gold-field' });
    }
    // --out: each item's readings go into the store's new rescores table as they are scored.
    const writer = intoStore ? await openRescoreWriter(source.store.location, rescoreId()) : parquetOut !== undefined ? await openRescoreWriterAt(parquetOut) : null;
    let scopes: ScopeResult[];
    try {
      scopes =
        wantsAsRecorded && matrixExtractors?.length === 0
          ? []
          : await computeMatrix(source.store, {
              extractors: matrixExtractors,
              normalizers: listFlag(flags.normalizers, '--normalizers'),
              aggregations: aggregations as Aggregation[] | undefined,
              flipsLimit,
              engine: flags.engine as 'auto' | 'sql' | 'js',
              ...(writer === null ? {} : { onItem: rescoreRows(writer) }),
              bootstrap,
              bootstrapSeed,
              ...(flags.goldField === undefined ? {} : { goldField: flags.goldField }),
            });
    } catch (error) {
      await writer?.abort();
      throw error;
    }
    // The source's own filter pipelines are loaded only when asked for (they are most of this command's code).
    const asRecorded: AsRecordedSection[] = wantsAsRecorded ? await (await import('../../score/asRecorded.ts')).rescoreAsRecorded(source.store) : [];
    const written = writer === null ? null : await writer.finish(rescoreProvenance(scopes, sources));

    const impossible = await findImpossible(source.store);
    // A task that scores by its own code: its cells say nothing about its numbers, and the notes say so.
    for (const scope of scopes) {
      const run = source.store.manifest.runs.find((r) => r.run_id === scope.run_id);
      const code = run === undefined ? null : await taskCode(run, scope.task);
      if (code !== null) scope.notes.unshift(code.sentence);
    }
    // Agent runs are swept over denominator rules instead of extractors (src/score/agents).
    const agents = wantsAsRecorded && matrixExtractors?.length === 0 ? [] : await agentSweeps(source.store);
    const report = { ...toReport(scopes, asRecorded, source.skipped, source.unrecognised), agent_sweeps: agents };
    // Runs that recorded only aggregates (results files without samples) have nothing to re-read.
    // An agent run counts when it has trials to sweep: one without (a Harbor parity record or job config) printed nothing at all.
    const withItems = new Set([...scopes.map((s) => s.run_id), ...agents.map((a) => a.run_id)]);
    const resultsOnly = source.store.manifest.runs
      .filter((r) => !withItems.has(r.run_id) && !(wantsAsRecorded && matrixExtractors?.length === 0))
      .map((r) => ({ run_id: r.run_id, label: r.label, reported_tasks: Object.keys(r.reported).length }));
    const textOut = parquetOut === undefined ? outPath : undefined;
    if (flags.json || outIs(textOut, 'json')) return emit({ json: { ...report, runs_without_items: resultsOnly, rescores_written: written, companions: source.companions, cannot_be_right: impossible, as_recorded_without_rows: asRecorded.flatMap((sec) => reportedWithoutRows(sec, source.store.manifest.runs.find((r) => r.run_id === sec.run_id)).map((m) => ({ run_id: sec.run_id, ...m }))) } }, textOut, 'rescoring report');
    // A results-only run names the files beside it that were not read; the others are named here.
    const besideRuns = new Set(resultsOnly.flatMap((r) => unreadBeside(r.label, source.unrecognised)));
    await emit({ lines: [
      ...companionLines(source.companions),
      ...unreadLines(source.unrecognised.filter((u) => !besideRuns.has(u))),
      ...formatMatrix(scopes, source.skipped.length),
      ...formatAgentSweeps(agents),
      ...resultsOnly.flatMap((r) => [
        r.reported_tasks === 0
          ? `run ${r.run_id} (${r.label}): no per-item records and no reported numbers imported (settings only), so nothing to rescore; \`lmaudit diff\` and \`lmaudit report\` still compare its settings`
          : `run ${r.run_id} (${r.label}): no per-item records imported (${r.reported_tasks} task(s) with reported numbers only), so nothing to rescore; \`lmaudit diff\` and \`lmaudit report\` still compare what it reported`,
        // A file beside it that was not read may be its samples (compressed, say): the sentence above is about what was read.
        ...unreadBeside(r.label, source.unrecognised).map((u) => `  not read beside it: ${u.path} (${u.reason})`),
      ]),
      ...formatAsRecorded(asRecorded, source.store.manifest.runs),
      ...impossibleLines(impossible),
      ...(written ? [`Per-item results ${intoStore ? 'appended to' : 'written to'} ${written}`] : []),
    ] }, textOut, 'rescoring report');
  });
}

function toReport(scopes: ScopeResult[], asRecorded: AsRecordedSection[], skipped: unknown[], unrecognised: unknown[]) {
  const key = (s: ScopeResult) => ({ run_id: s.run_id, task: s.task });
  return {
    cells: scopes.flatMap((s) => s.cells),
    spread: scopes.map((s) => ({ ...key(s), ...s.spread })),
    disagreement: scopes.flatMap((s) => s.disagreement.map((d) => ({ ...key(s), ...d }))),
    flips: scopes.map((s) => ({ ...key(s), ...s.flips })),
    denominator: {
      items_read: scopes.reduce((a, s) => a + s.denominator.items_read, 0),
      items_scored: scopes.reduce((a, s) => a + s.denominator.items_scored, 0),
      records_skipped_on_import: skipped.length,
      skipped,
      files_not_recognised: unrecognised,
      per_task: scopes.map((s) => ({ ...key(s), ...s.denominator })),
    },
    scopes: scopes.map(({ cells: _c, items: _i, cellKeys: _k, ...rest }) => rest),
    as_recorded: asRecorded,
  };
}

function rescoreId(): string {
  return `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(3).toString('hex')}`;
}

/** One rescores row per (item, cell). */
function rescoreRows(writer: RescoreWriter): NonNullable<MatrixSpec['onItem']> {
  return (scope, cellKeys, item) => {
    cellKeys.forEach((cell, k) =>
      writer.add({
        run_id: scope.run_id, task: scope.task, doc_id: item.doc_id, extractor: cell.extractor, normalizer: cell.normalizer,
        extracted: item.extracted[k] ?? null, value: item.values[k]!,
      }),
    );
  };
}

function rescoreProvenance(scopes: ScopeResult[], sources: string[]): string {
  return JSON.stringify({
    created_by: 'lmaudit rescore',
    sources,
    sweeps: scopes.map((s) => ({ run_id: s.run_id, task: s.task, ...s.sweep })),
    cells: scopes.flatMap((s) => s.cells.map(({ groups: _g, ...c }) => c)),
  });
}

/** Files of the run's own folder that the import did not read (the run's label is its results file's path). */
function unreadBeside(label: string, unrecognised: readonly { path: string; reason: string }[]): { path: string; reason: string }[] {
  const folder = dirname(label);
  return unrecognised.filter((u) => dirname(u.path) === folder);
}
