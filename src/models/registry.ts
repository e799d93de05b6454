/**
 * Backends by name (`--model <name>`), loaded on demand so that a run pays only for
 * the backend it uses. Written minimal on the `run` branch (dummy only); the onnx
 * branch's registry adds its backends to the same table.
 */
import { UnknownNameError } from '../errors.ts';
import type { BackendFactory } from './lm.ts';

const BACKENDS: Record<string, () => Promise<BackendFactory>> = {
  dummy: async () => (await import('./dummy.ts')).dummyBackend,
};

export function backendNames(): string[] {
  return Object.keys(BACKENDS).sort();
}

export async function backendFactory(name: string): Promise<BackendFactory> {
  const load = Object.hasOwn(BACKENDS, name) ? BACKENDS[name] : undefined;
  if (load === undefined) throw new UnknownNameError('backend (--model)', name, backendNames());
  return load();
}
