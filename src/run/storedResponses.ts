/**
 * Every response of the run being finished, read back from the recorder's parts with
 * the fields only the parts keep (stop sequences applied, tokens truncated): the
 * responses of earlier sessions of a resumed run count as much as this session's.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunRecorder } from '../store/recorder.ts';
import { listParts } from '../store/responseParts.ts';
import type { RecordedResponse } from './schedule.ts';

export async function readResponses(store: string, recorder: RunRecorder): Promise<RecordedResponse[]> {
  const folder = join(store, recorder.recording.parts);
  const rows: RecordedResponse[] = [];
  for (const name of await listParts(folder)) {
    for (const line of (await readFile(join(folder, name), 'utf8')).split('\n')) {
      if (line === '') continue;
      const row = JSON.parse(line) as Record<string, unknown>;
      rows.push({
        ...(row as unknown as RecordedResponse),
        // Written as text (JSON has no NaN/Infinity); String(x) round-trips exactly through Number().
        logprob: row.logprob === null ? null : Number(row.logprob),
        latency_ms: row.latency_ms === null ? null : Number(row.latency_ms),
      });
    }
  }
  return rows;
}
