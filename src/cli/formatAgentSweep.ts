/** Text form of the agent denominator sweep. */
import type { AgentSweep } from '../score/agents/sweep.ts';
import { formatTable } from './output.ts';

const fmt = (x: number | null) => (x === null ? 'n/a' : x.toFixed(4));

export function formatAgentSweeps(sweeps: readonly AgentSweep[]): string[] {
  const lines: string[] = [];
  for (const s of sweeps) {
    const outcomes = Object.entries(s.outcomes).map(([k, v]) => `${v} ${k}`).join(', ');
    lines.push(`${s.task}  (run ${s.run_id}, ${s.source_kind}: ${s.trials} trial(s) over ${s.tasks} instance(s): ${outcomes})`);
    const exits = Object.entries(s.agent_exits);
    if (exits.length > 0) lines.push(`  the agent's exit statuses: ${exits.map(([k, v]) => `${v} ${k}`).join(', ')}`);
    if (!s.evaluated) {
      lines.push('  nothing evaluated (predictions or settings only): no denominator rule applies');
    } else {
      lines.push('  denominator sweep (the same trials under each rule):');
      const rows = s.rules.map((r) => [r.rule, fmt(r.value), String(r.n), fmt(r.stderr), r.as_published.length > 0 ? `as published: ${r.as_published.join('; ')}` : '', r.description]);
      lines.push(...formatTable(['rule', 'value', 'n', 'stderr', 'published', 'counts'], rows).map((l) => `    ${l}`));
      lines.push(`  spread over the rules: ${fmt(s.spread)}`);
    }
    for (const n of s.notes) lines.push(`  flag (${n.kind}): ${n.message}`);
    lines.push('');
  }
  return lines;
}
