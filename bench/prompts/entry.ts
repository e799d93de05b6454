// Bench entry (bundled by run.mjs): times `buildPrompts` for mmlu 5-shot in-process,
// then writes the records (untimed) for the byte comparison.
import { buildPrompts, writePromptFile } from '../../src/prompt/prompts.ts';

const out = process.argv[2]!;
const start = performance.now();
const cpu0 = process.cpuUsage();
const { built } = await buildPrompts({ tasks: ['mmlu'], numFewshot: 5 });
const buildS = (performance.now() - start) / 1000;
const cpu = process.cpuUsage(cpu0);
const cpuS = (cpu.user + cpu.system) / 1e6;
const docs = writePromptFile(built, out);
process.stdout.write(`${JSON.stringify({ build_s: buildS, cpu_s: cpuS, docs })}\n`);
