/**
 * Backends by the name `--model` takes. Written minimal on the `run` branch with the same
 * functions as the onnx branch's registry (registerBackend / backendNames /
 * backendFactory), so that the merge keeps that file and adds the dummy registration below.
 * A backend's module is imported only when it is opened.
 */
import { UnknownNameError } from '../errors.ts';
import type { BackendFactory } from './lm.ts';

const backends = new Map<string, BackendFactory>();

/** Adds a backend; a second registration under one name is a programming error. */
export function registerBackend(name: string, factory: BackendFactory): void {
  if (backends.has(name)) throw new Error(`model backend '${name}' is registered twice`);
  backends.set(name, factory);
}

export function backendNames(): string[] {
  return [...backends.keys()].sort();
}

/** The factory registered under `name`; an unknown name is an `UnknownNameError` with close matches. */
export function backendFactory(name: string): BackendFactory {
  const factory = backends.get(name);
  if (factory === undefined) throw new UnknownNameError('model backend', name, backendNames());
  return factory;
}

registerBackend('dummy', {
  async open(args, options) {
    const { dummyBackend } = await import('./dummy.ts');
    return dummyBackend.open(args, options);
  },
});

registerBackend('onnx', {
  async open(args, options) {
    const { onnxBackend } = await import('./onnx/onnxBackend.ts');
    return onnxBackend.open(args, options);
  },
});

// Answers from a store an earlier run wrote (`--model_args store=<dir>`): no model is loaded.
registerBackend('replay', {
  async open(args, options) {
    const { replayBackend } = await import('./replay.ts');
    return replayBackend.open(args, options);
  },
});

registerBackend('openai-completions', {
  async open(args, options) {
    const { openaiCompletionsBackend } = await import('./api/openaiCompletions.ts');
    return openaiCompletionsBackend.open(args, options);
  },
});

registerBackend('openai-chat', {
  async open(args, options) {
    const { openaiChatBackend } = await import('./api/openaiChat.ts');
    return openaiChatBackend.open(args, options);
  },
});

registerBackend('anthropic', {
  async open(args, options) {
    const { anthropicBackend } = await import('./api/anthropic.ts');
    return anthropicBackend.open(args, options);
  },
});
