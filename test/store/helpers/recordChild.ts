/**
 * A process that records a run part by part (the recorder test kills it with SIGKILL at
 * random moments): it starts the store or resumes it, appends every missing response in
 * parts of PART rows, and finishes. Every response's content is a function of its key, so
 * the parent can check each one it finds.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { RunRecorder, responseKey } from '../../../src/store/recorder.ts';
import { SCHEMA_VERSION, emptyRunProvenance, type StoreManifest } from '../../../src/store/schema.ts';
import { expectedRows, instanceRows } from './recordRows.ts';

const [dir, totalText, partText, pauseText] = process.argv.slice(2) as [string, string, string, string];
/** Milliseconds between parts: the time inference would take. */
const pause = Number(pauseText);
const total = Number(totalText);
const part = Number(partText);
const manifest: StoreManifest = {
  schema_version: SCHEMA_VERSION,
  created_by: 'recorder test',
  runs: [emptyRunProvenance({ run_id: 'r', label: 'kill test', source_kind: 'lmaudit', source_format: 'lmaudit run' })],
};

async function main(): Promise<void> {
  const recorder = existsSync(join(dir, 'provenance.json'))
    ? await RunRecorder.resume(dir)
    : await RunRecorder.start(dir, { manifest, instances: instanceRows(total), expectedResponses: total, config: { total } });
  const missing = expectedRows(total).filter((r) => !recorder.held.has(responseKey(r)));
  for (let i = 0; i < missing.length; i += part) {
    await new Promise((resolve) => setTimeout(resolve, pause));
    await recorder.append(missing.slice(i, i + part));
  }
  await recorder.finish({ manifest, instances: instanceRows(total), scores: { rows: [] }, filtered: { rows: [] } });
  await recorder.close();
  process.stdout.write('finished\n');
}

main().catch((error: Error) => {
  process.stderr.write(`${error.message}\n`);
  process.exit(/already finished/.test(error.message) ? 0 : 1);
});
