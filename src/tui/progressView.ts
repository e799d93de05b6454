/**
 * The live run view (ink), for a terminal on stderr only: done/total per request type,
 * rate, ETA, the current task and the failures so far. Built with React.createElement so
 * that no JSX build step is needed.
 */
import React from 'react';
import { render, Box, Text } from 'ink';
import { formatDuration, type ProgressState, type RequestType, type RunEvents } from '../run/events.ts';

const h = React.createElement;

function bar(done: number, total: number, width = 24): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
}

function View({ state, columns }: { state: ProgressState; columns: number | undefined }) {
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

export function showProgress(state: ProgressState, events: RunEvents, stream: NodeJS.WriteStream = process.stderr): () => Promise<void> {
  const view = () => h(View, { state, columns: stream.columns });
  const app = render(view(), { stdout: stream, patchConsole: false });
  let timer: NodeJS.Timeout | null = null;
  const redraw = () => app.rerender(view());
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
