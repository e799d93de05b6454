/**
 * The live run view (ink), for a terminal on stderr only: done/total per request type,
 * rate, ETA, the current task and the failures so far. Built with React.createElement so
 * that no JSX build step is needed. ink is ESM with top-level await: it is loaded with
 * import() (never require()), so the CommonJS bundle loads it too.
 */
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import type { ReactElement } from 'react';
import { formatDuration, type ProgressState, type RequestType, type RunEvents } from '../run/events.ts';

type Ink = typeof import('ink');
type CreateElement = typeof import('react').createElement;

/**
 * import() from a script compiled here, with its own dynamic-import hook: the CommonJS bundle
 * runs from a V8 code cache, and functions V8 restores from a cache lose the hook, so an
 * import() written in the bundle fails there (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING).
 * The script is named after this module's file: a script without a file name resolves a bare
 * specifier against the working directory, so from any folder but the repository ink was not found.
 */
async function importEsm(specifier: string): Promise<unknown> {
  const loader = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (loader === undefined) return import(specifier);
  // Node 20 calls this loader constant experimental and says so on the user's terminal, above the view; the
  // warning is about our loading code, not the run, so this one warning is held back while ink loads.
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (String(typeof warning === 'string' ? warning : warning.message).includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return;
    (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    const load = vm.runInThisContext('(specifier) => import(specifier)', {
      filename: fileURLToPath(import.meta.url),
      importModuleDynamically: loader,
    }) as (s: string) => Promise<unknown>;
    return await load(specifier);
  } finally {
    process.emitWarning = emit;
  }
}

function bar(done: number, total: number, width = 24): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
}

function view(h: CreateElement, { Box, Text }: Ink, state: ProgressState, columns: number | undefined): ReactElement {
  const types = Object.keys(state.totals) as RequestType[];
  // A terminal that reports no size (0 columns) would wrap every character.
  const width = columns !== undefined && columns > 0 ? columns : 100;
  return h(
    Box,
    { flexDirection: 'column', width },
    ...types.map((t) => h(Text, { key: t }, `${t.padEnd(22)} ${bar(state.done[t] ?? 0, state.totals[t] ?? 0)} ${state.done[t] ?? 0}/${state.totals[t]}`)),
    h(Text, null, `${state.rate().toFixed(1)} responses/s · ETA ${formatDuration(state.eta())} · ${state.phase === 'scoring' ? 'scoring' : `task ${state.task || '–'}`}`),
    h(Text, { color: state.failures > 0 ? 'red' : undefined }, `errors ${state.failures}${state.lastFailure ? `: ${state.lastFailure}` : ''}`),
  );
}

export async function showProgress(state: ProgressState, events: RunEvents, stream: NodeJS.WriteStream = process.stderr): Promise<() => Promise<void>> {
  const ink = (await importEsm('ink')) as Ink;
  const h = ((await importEsm('react')) as typeof import('react')).createElement;
  const draw = () => view(h, ink, state, stream.columns);
  const app = ink.render(draw(), { stdout: stream, patchConsole: false });
  let timer: NodeJS.Timeout | null = null;
  const redraw = () => app.rerender(draw());
  const stop = events.on(() => {
    // At most ten redraws a second, however fast responses arrive.
    if (timer === null) timer = setTimeout(() => ((timer = null), redraw()), 100);
  });
  return async () => {
    stop();
    if (timer !== null) clearTimeout(timer);
    redraw();
    app.unmount();
    await app.waitUntilExit().catch(() => undefined);
  };
}
