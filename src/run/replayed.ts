/**
 * A run answered by the replay backend (src/models/replay.ts): every request is looked up before
 * anything is stored, so a request the stores do not answer is refused up front (exit 2, listed),
 * or with --allow-missing its document is left out of the run and the provenance says which and
 * why. The provenance names the stores replayed (path, sha256 of their responses) and keeps the
 * model that produced the answers, not "replay".
 */
import { BadInputError } from '../errors.ts';
import type { GenerationSettings } from '../models/lm.ts';
import type { ReplayRequest, ReplaySource } from '../models/replay.ts';
import type { BuiltTask } from '../prompt/build.ts';
import { inferred, recorded, same, UNKNOWN, type RunProvenance, type SourceFile } from '../store/schema.ts';
import { planWork, type Target } from './schedule.ts';

/** How many unanswered requests an error lists before counting the rest. */
const LISTED = 10;

export interface MissingAnswers {
  /** Requests without a recorded answer (targets: a request several instances asked counts once per instance). */
  requests: Target[];
  /** Documents left out, by task. */
  documents: Map<string, string[]>;
}

export interface ReplayCoverage {
  built: BuiltTask[];
  requests: number;
  missing: MissingAnswers | null;
}

const where = (t: Target, type: string) => `${t.task} doc ${t.doc_id} request ${t.request_idx}${t.repeat > 0 ? ` repeat ${t.repeat}` : ''} (${type})`;

/** Checks that the stores answer every request; refuses, or (allowMissing) leaves the unanswered documents out. */
export function checkReplayCoverage(source: ReplaySource, built: readonly BuiltTask[], settings: ReadonlyMap<string, GenerationSettings>, allowMissing: boolean): ReplayCoverage {
  const plan = planWork(built, settings, new Set());
  const missingItems = source.missing(plan.items.map((item) => ({ requestType: item.requestType, request: item.request }) as ReplayRequest));
  const requests = plan.items.reduce((n, item) => n + item.targets.length, 0);
  if (missingItems.length === 0) return { built: [...built], requests, missing: null };
  const listed = missingItems.flatMap((i) => plan.items[i]!.targets.map((t) => ({ t, type: plan.items[i]!.requestType })));
  const stores = source.stores.map((s) => s.path).join(', ');
  if (!allowMissing) {
    const lines = listed.slice(0, LISTED).map(({ t, type }) => `  ${where(t, type)}`);
    const more = listed.length > LISTED ? [`  … and ${listed.length - LISTED} more`] : [];
    throw new BadInputError(
      `--model replay: ${listed.length} of ${requests} request(s) have no recorded answer in ${stores}:\n${[...lines, ...more].join('\n')}\n` +
        'nothing was stored; run those against a model, or pass --allow-missing to leave their documents out (the provenance lists them)',
    );
  }
  const documents = new Map<string, string[]>();
  for (const { t } of listed) {
    const docs = documents.get(t.task) ?? [];
    if (!docs.includes(t.doc_id)) docs.push(t.doc_id);
    documents.set(t.task, docs);
  }
  const kept = built.map((t) => {
    const out = new Set(documents.get(t.config.task) ?? []);
    return { ...t, docs: t.docs.filter((d) => !out.has(String(d.doc_id))) };
  });
  return { built: kept, requests, missing: { requests: listed.map((x) => x.t), documents } };
}

/** What the provenance of a replayed run says besides what any run says. */
export function amendReplayedProvenance(prov: RunProvenance, source: ReplaySource, missing: MissingAnswers | null, replayFlag: boolean): void {
  const stores = source.stores;
  if (replayFlag) prov.model.backend = same(recorded(source.model.backend, `recorded by the run replayed (${stores.map((s) => s.path).join(', ')}); --model replay`));
  const files: SourceFile[] = stores.map((s) => ({ path: s.finished ? `${s.path}/responses.parquet` : `${s.path}/responses.parts`, sha256: s.responsesSha256, role: s.finished ? 'replayed responses' : 'replayed responses (an unfinished store: its response parts, hashed in part order)' }));
  const before = prov.records.files?.used.status === 'recorded' ? (prov.records.files.used.value as SourceFile[]) : [];
  prov.records.files = same(recorded([...before, ...files]));
  for (const s of stores) {
    prov.notes.push({
      task: null,
      kind: 'replay',
      message: `answers replayed from ${s.path} (${s.finished ? 'finished' : 'unfinished'} store; responses sha256 ${s.responsesSha256}; ${s.answers} recorded answers); no model was called`,
      evidence: [JSON.stringify({ store: s.path, responses_sha256: s.responsesSha256, runs: s.runs.map((r) => r.run_id) })],
    });
  }
  if (source.conflicts > 0) {
    prov.notes.push({ task: null, kind: 'replay-conflict', message: `${source.conflicts} request(s) were recorded with two or more different answers in the stores replayed; each was answered with the first in store order`, evidence: [] });
  }
  for (const [task, block] of Object.entries(prov.tasks)) {
    // Truncation is counted per task, not per response: copied when the stores' runs scored exactly these documents.
    const here = block.samples.document_ids?.used.status === 'recorded' ? (block.samples.document_ids.used.value as string[]) : null;
    const sources = stores.flatMap((s) => s.runs.map((r) => r.tasks[task]).filter((b) => b !== undefined));
    const ids = sources.flatMap((b) => (b.samples.document_ids?.used.status === 'recorded' ? (b.samples.document_ids.used.value as string[]) : []));
    const counts = sources.map((b) => (b.failures.truncations?.used.status === 'recorded' ? (b.failures.truncations.used.value as { requests: number; tokens_dropped: number }) : null));
    if (here !== null && block.failures.truncations !== undefined) {
      const sameDocs = ids.length === here.length && [...ids].sort().join('\u0000') === [...here].sort().join('\u0000');
      block.failures.truncations = sameDocs && counts.every((c) => c !== null)
        ? same(inferred({ requests: counts.reduce((n, c) => n + c!.requests, 0), tokens_dropped: counts.reduce((n, c) => n + c!.tokens_dropped, 0) }, 'as the replayed run(s) recorded it for these documents'))
        : same(UNKNOWN);
    }
    const left = missing?.documents.get(task);
    if (left !== undefined && left.length > 0) {
      const n = missing!.requests.filter((t) => t.task === task).length;
      prov.notes.push({ task, kind: 'replay-missing', message: `${left.length} document(s) left out of ${task}: ${n} request(s) had no recorded answer (--allow-missing); the results are over the other documents`, evidence: [JSON.stringify({ doc_ids: left })] });
      block.failures.in_denominator = same(recorded(false, `${left.length} document(s) without a recorded answer were left out (--allow-missing)`));
    }
  }
}
