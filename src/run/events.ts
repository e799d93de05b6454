/**
 * The runner's typed events. The store writer and the progress views subscribe; the
 * runner awaits every subscriber of an event before it goes on, so a batch counts as
 * done only once its responses are durable in the store.
 */
import type { ResponseRow } from '../store/schema.ts';

export type RequestType = 'loglikelihood' | 'loglikelihood_rolling' | 'generate_until';

export type RunEvent =
  /** What the run will do: responses per request type, and how many the store already held (resume). */
  | { kind: 'planned'; tasks: string[]; totals: Partial<Record<RequestType, number>>; held: Partial<Record<RequestType, number>>; store: string }
  | { kind: 'batch'; requestType: RequestType; task: string; requests: number }
  | { kind: 'responses'; requestType: RequestType; task: string; rows: ResponseRow[]; inferenceMs: number }
  | { kind: 'failed'; message: string }
  | { kind: 'scoring' }
  | { kind: 'finished'; wallMs: number; inferenceMs: number };

export type RunListener = (event: RunEvent) => void | Promise<void>;

export class RunEvents {
  private readonly listeners: RunListener[] = [];

  on(listener: RunListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  async emit(event: RunEvent): Promise<void> {
    for (const listener of this.listeners) await listener(event);
  }
}

/** Done/total per request type, rate, ETA, current task and failures: what every progress view shows. */
export class ProgressState {
  totals: Partial<Record<RequestType, number>> = {};
  done: Partial<Record<RequestType, number>> = {};
  task = '';
  phase: 'planning' | 'requests' | 'scoring' | 'finished' | 'failed' = 'planning';
  failures = 0;
  lastFailure: string | null = null;
  private startedAt = performance.now();
  private doneThisSession = 0;

  update(event: RunEvent): void {
    switch (event.kind) {
      case 'planned':
        this.totals = { ...event.totals };
        this.done = { ...event.held };
        this.phase = 'requests';
        this.startedAt = performance.now();
        break;
      case 'batch':
        this.task = event.task;
        break;
      case 'responses':
        this.done[event.requestType] = (this.done[event.requestType] ?? 0) + event.rows.length;
        this.doneThisSession += event.rows.length;
        break;
      case 'failed':
        this.failures++;
        this.lastFailure = event.message;
        this.phase = 'failed';
        break;
      case 'scoring':
        this.phase = 'scoring';
        break;
      case 'finished':
        this.phase = 'finished';
        break;
    }
  }

  get doneAll(): number {
    return Object.values(this.done).reduce((a, b) => a + (b ?? 0), 0);
  }

  get totalAll(): number {
    return Object.values(this.totals).reduce((a, b) => a + (b ?? 0), 0);
  }

  /** Responses per second since this session's requests began. */
  rate(now = performance.now()): number {
    const seconds = (now - this.startedAt) / 1000;
    return seconds > 0 ? this.doneThisSession / seconds : 0;
  }

  /** Seconds left at the current rate; null before anything is measured. */
  eta(now = performance.now()): number | null {
    const rate = this.rate(now);
    return rate > 0 ? (this.totalAll - this.doneAll) / rate : null;
  }
}

export function formatDuration(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '–';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** One line of progress, without escape codes (the plain view prints it; the ink view shows the same facts). */
export function progressLine(state: ProgressState): string {
  const types = (Object.keys(state.totals) as RequestType[]).map((t) => `${t} ${state.done[t] ?? 0}/${state.totals[t]}`);
  return [
    types.join(', '),
    `${state.rate().toFixed(1)} responses/s`,
    `ETA ${formatDuration(state.eta())}`,
    state.task ? `task ${state.task}` : null,
    `errors ${state.failures}`,
  ]
    .filter(Boolean)
    .join(' · ');
}
