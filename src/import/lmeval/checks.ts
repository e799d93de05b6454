/**
 * Consistency checks inside the records themselves (§8 step 6): hashes recomputed
 * against the recorded ones, task_hashes over the whole file, document counts against
 * n-samples, and documents whose raw responses differ between filter lines.
 * Each finding becomes a provenance note with the lines that show it.
 */
import type { RecordNote } from '../../store/schema.ts';
import { sha256Hex } from '../../util/hash.ts';
import { pyDumps } from '../../util/orderedJson.ts';
import { targetText, type SampleLine } from './sampleLine.ts';

const MAX_EVIDENCE = 20;

function note(task: string, kind: string, message: string, evidence: string[]): RecordNote {
  const shown = evidence.slice(0, MAX_EVIDENCE);
  if (evidence.length > shown.length) shown.push(`… and ${evidence.length - shown.length} more`);
  return { task, kind, message, evidence: shown };
}

export interface CheckInput {
  task: string;
  file: string;
  lines: readonly SampleLine[];
  /** results' task_hashes[task], when recorded. */
  taskHash: string | null;
  /** results' n-samples[task].effective (or the limit), when recorded. */
  expectedDocs: { value: number; from: string } | null;
}

export function checkSamples(input: CheckInput): RecordNote[] {
  const { task, file, lines } = input;
  const notes: RecordNote[] = [];
  const at = (l: SampleLine, detail: string) => `${file}:${l.line} doc_id ${l.docId}: ${detail}`;

  const docBad: string[] = [];
  const promptBad: string[] = [];
  const targetBad: string[] = [];
  let docChecked = 0;
  for (const l of lines) {
    if (l.docHash !== null && l.doc !== null) {
      docChecked++;
      const h = sha256Hex(pyDumps(l.doc, 2));
      if (h !== l.docHash) docBad.push(at(l, `recorded ${l.docHash.slice(0, 12)}…, recomputed ${h.slice(0, 12)}…`));
    }
    const context = l.requests[0]?.context;
    if (l.promptHash !== null && context != null && sha256Hex(context) !== l.promptHash) {
      promptBad.push(at(l, `prompt_hash ${l.promptHash.slice(0, 12)}… ≠ sha256(arg_0) ${sha256Hex(context).slice(0, 12)}…`));
    }
    const target = targetText(l);
    if (l.targetHash !== null && target !== null && sha256Hex(target) !== l.targetHash) {
      targetBad.push(at(l, `target_hash ≠ sha256(str(target))`));
    }
  }
  const unhashed = lines.filter((l) => l.docHash === null && l.doc !== null).length;
  if (unhashed > 0) {
    notes.push(note(task, 'doc_hash_inferred', `${unhashed} records carry no doc_hash (before lm-eval 0.4.3); instances.doc_hash is computed the way lm-eval does it, sha256 of json.dumps(doc, indent=2, ensure_ascii=False), from the document with its key order and number spelling as written`, []));
  }
  if (docBad.length > 0) notes.push(note(task, 'doc_hash_mismatch', `${docBad.length} of ${docChecked} doc_hash values differ from sha256(json.dumps(doc, indent=2, ensure_ascii=False))`, docBad));
  if (promptBad.length > 0) notes.push(note(task, 'prompt_hash_mismatch', `${promptBad.length} prompt_hash values differ from sha256 of the first request's arg_0`, promptBad));
  if (targetBad.length > 0) notes.push(note(task, 'target_hash_mismatch', `${targetBad.length} target_hash values differ from sha256 of the target field`, targetBad));

  if (input.taskHash !== null) {
    if (lines.some((l) => l.docHash === null || l.promptHash === null || l.targetHash === null)) {
      notes.push(note(task, 'task_hash_unverifiable', 'task_hashes is recorded but some samples lack doc/prompt/target hashes', []));
    } else {
      const recomputed = sha256Hex(lines.map((l) => `${l.docHash}${l.promptHash}${l.targetHash}`).join(''));
      if (recomputed !== input.taskHash) {
        notes.push(note(task, 'task_hash_mismatch', `task_hashes.${task} is ${input.taskHash}, but the ${lines.length} sample lines hash to ${recomputed}: the samples file is not the one the results were computed from, or it was edited or truncated`, []));
      } else {
        notes.push(note(task, 'task_hash_verified', `task_hashes.${task} equals sha256 over the ${lines.length} sample lines' doc/prompt/target hashes`, []));
      }
    }
  }

  const filters = new Map<string, Set<string>>();
  for (const l of lines) {
    const f = l.filter ?? 'none';
    if (!filters.has(f)) filters.set(f, new Set());
    const docs = filters.get(f)!;
    if (docs.has(l.docId)) notes.push(note(task, 'duplicate_doc', `doc_id ${l.docId} appears twice under filter '${f}'`, [at(l, 'second occurrence')]));
    docs.add(l.docId);
  }
  if (input.expectedDocs !== null) {
    for (const [f, docs] of filters) {
      if (docs.size !== input.expectedDocs.value) {
        notes.push(note(task, 'sample_count_mismatch', `filter '${f}' has ${docs.size} documents in the samples, but ${input.expectedDocs.from} says ${input.expectedDocs.value}`, []));
      }
    }
  }

  const firstResps = new Map<string, { line: SampleLine; json: string }>();
  const differ: string[] = [];
  for (const l of lines) {
    const json = JSON.stringify(l.resps.map((r) => r.map((n) => pyDumps(n))));
    const seen = firstResps.get(l.docId);
    if (seen === undefined) firstResps.set(l.docId, { line: l, json });
    else if (seen.json !== json) differ.push(at(l, `resps differ from line ${seen.line.line}`));
  }
  if (differ.length > 0) notes.push(note(task, 'resps_differ_between_filters', `${differ.length} records hold raw responses that differ from the same document's first record; the first is stored`, differ));

  const extras = [...new Set(lines.flatMap((l) => l.extras.map(([k]) => k)))];
  if (extras.length > 0) {
    notes.push(note(task, 'extra_fields', `records carry fields that are neither lm-eval format fields nor listed metrics: ${extras.join(', ')}; stored in the scores table as metric 'field:<name>' with value null and the recorded JSON in value_json`, []));
  }
  return notes;
}
