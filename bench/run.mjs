#!/usr/bin/env node
// `npm run bench`: every performance target, each as a ratio against a baseline
// measured in the same run. Extra arguments go to each benchmark.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const BENCHES = ['bench/rescore.mjs', 'bench/prompts/run.mjs', 'bench/import.mjs', 'bench/rescore_lmeval.mjs', 'bench/runOverhead.mjs', 'bench/generation.mjs', 'bench/sampling.mjs', 'bench/serve.mjs', 'bench/apiThroughput.mjs', 'bench/view.mjs'];
let failed = false;
for (const bench of BENCHES) {
  console.log(`\n=== ${bench}`);
  const r = spawnSync(process.execPath, [bench, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
