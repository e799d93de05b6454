/**
 * lm-eval's `pretty_env_info` (PyTorch's `torch.utils.collect_env` report) read into the
 * environment disclosure item: GPUs, CPU, the CUDA/ROCm stack, the OS and the library
 * versions it lists. Two reruns on different GPUs can differ in their generations for that
 * reason alone, so these are settings. The raw text stays in the key-by-key table.
 */

export interface EnvironmentInfo {
  /** 'N × model' per distinct GPU model, or 'none (no CUDA)'. */
  gpu?: string;
  cpu?: string;
  /** CUDA/ROCm availability and versions, as collect_env printed them. */
  accelerator?: Record<string, string | boolean>;
  os?: string;
  /** `[pip3] name==version` lines, and the PyTorch version line. */
  libraries?: Record<string, string>;
}

/** collect_env's placeholders for a value it could not read. */
const NOT_READ = /^(Could not collect|N\/A|None|)$/;

function line(text: string, label: string): string | undefined {
  const m = new RegExp(`^${label.replace(/[()]/g, '\\$&')}:[ \\t]*(.*)$`, 'm').exec(text);
  return m === null ? undefined : m[1]!.trim();
}

function gpus(text: string): string | undefined {
  const start = /^GPU models and configuration:[ \t]*(.*)$/m.exec(text);
  if (start === null) return undefined;
  const first = start[1]!.trim();
  if (first === 'No CUDA') return 'none (no CUDA)';
  if (NOT_READ.test(first) && first !== '') return undefined;
  // One GPU prints on the same line; several print one 'GPU i: model' line each below it.
  const lines = /^GPU \d+:/.test(first) ? [first] : [];
  for (const l of text.slice(start.index + start[0].length + 1).split('\n')) {
    if (!/^GPU \d+:/.test(l)) break;
    lines.push(l);
  }
  if (lines.length === 0) return first === '' ? undefined : first;
  const counts = new Map<string, number>();
  for (const l of lines) {
    const model = l.replace(/^GPU \d+:\s*/, '').replace(/\s*\(UUID:.*\)$/, '');
    counts.set(model, (counts.get(model) ?? 0) + 1);
  }
  return [...counts].map(([model, n]) => `${n} × ${model}`).join(', ');
}

function cpu(text: string): string | undefined {
  const block = /^CPU:\n([\s\S]*?)(?:\n\n|(?![\s\S]))/m.exec(text);
  if (block === null) return undefined;
  const model = /^Model name:\s*(.+)$/m.exec(block[1]!);
  if (model !== null) return model[1]!.trim();
  const first = block[1]!.split('\n')[0]!.trim();
  return first === '' || first.includes(':') ? undefined : first;
}

function libraries(text: string): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  const torch = line(text, 'PyTorch version');
  if (torch !== undefined && !NOT_READ.test(torch)) out.torch = torch;
  for (const m of text.matchAll(/^\[pip3?\] ([A-Za-z0-9_.-]+)==(\S+)$/gm)) out[m[1]!] = m[2]!;
  return Object.keys(out).length > 0 ? out : undefined;
}

function accelerator(text: string): Record<string, string | boolean> | undefined {
  const out: Record<string, string | boolean> = {};
  const available = line(text, 'Is CUDA available');
  if (available === 'True' || available === 'False') out.cuda_available = available === 'True';
  const fields: [string, string][] = [
    ['CUDA runtime version', 'cuda_runtime'],
    ['CUDA used to build PyTorch', 'cuda_build'],
    ['Nvidia driver version', 'nvidia_driver'],
    ['ROCM used to build PyTorch', 'rocm_build'],
    ['HIP runtime version', 'hip_runtime'],
  ];
  for (const [label, key] of fields) {
    const v = line(text, label);
    if (v !== undefined && !NOT_READ.test(v) && v !== 'No CUDA') out[key] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * The environment `pretty_env_info` describes; null when it is not collect_env's report (lm-eval
 * writes the text of the exception when collecting failed, e.g. "'NoneType' object has no attribute …").
 */
export function parseEnvInfo(raw: unknown): EnvironmentInfo | null {
  if (typeof raw !== 'string' || !/^PyTorch version:/m.test(raw)) return null;
  const text = raw.replace(/\r\n/g, '\n');
  const info: EnvironmentInfo = {};
  const g = gpus(text);
  if (g !== undefined) info.gpu = g;
  const c = cpu(text);
  if (c !== undefined) info.cpu = c;
  const a = accelerator(text);
  if (a !== undefined) info.accelerator = a;
  const os = line(text, 'OS');
  if (os !== undefined && !NOT_READ.test(os)) info.os = os;
  const l = libraries(text);
  if (l !== undefined) info.libraries = l;
  return info;
}
