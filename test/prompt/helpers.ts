/** Synthetic tasks for the spec vectors: a temporary folder with task YAMLs and JSONL splits. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildTask, type BuildOptions, type DocRequests } from '../../src/prompt/build.ts';
import { TaskIndex } from '../../src/tasks/index.ts';

export function taskFolder(files: Record<string, string | unknown[]>): string {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-spec-'));
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, name), typeof content === 'string' ? content : content.map((d) => `${JSON.stringify(d)}\n`).join(''));
  }
  return dir;
}

export async function buildIn(dir: string, task: string, options: Partial<BuildOptions> = {}): Promise<DocRequests[]> {
  const index = new TaskIndex([dir]);
  const [config] = index.resolve([task]).tasks;
  return (await buildTask(config!, { roots: index.roots, ...options })).docs;
}

/** The mock chat template of lmeval-prompts.md §14: `<|role|>content<|end|>`, then `<|assistant|>`. */
export const MOCK_CHAT = '{% for m in messages %}<|{{ m.role }}|>{{ m.content }}<|end|>{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}';
