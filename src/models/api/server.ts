/**
 * What every API backend does around its requests: the checks before a run (the server answers,
 * speaks the OpenAI or Anthropic protocol, lists the model), running a batch's requests
 * concurrently while keeping the answers of those that succeeded when one fails for good, and
 * the record of what a server changed.
 */
import { BadInputError } from '../../errors.ts';
import { PartialBatchError, type ModelAdjustment } from '../lm.ts';
import { ApiRequestFailed, type HttpClient } from './http.ts';

/** GET /v1/models: reachable, protocol-speaking, serving `model` (its entry is returned). Throws BadInputError (exit 2) otherwise. */
export async function checkServer(client: HttpClient, root: URL, model: string, backend: string): Promise<Record<string, unknown>> {
  const where = `${root.href}models`;
  let reply: Awaited<ReturnType<HttpClient['get']>>;
  try {
    reply = await client.get('models');
  } catch (error) {
    throw new BadInputError(`--model ${backend}: cannot reach the server at ${root.origin} (GET ${where}: ${(error as Error).message}); check base_url and that the server is running`);
  }
  if (reply.status === 401 || reply.status === 403) throw new BadInputError(`--model ${backend}: the server refused the key (GET ${where} answered ${reply.status}); check the key in the environment`);
  const notCompatible = (why: string) => backend === 'anthropic'
    ? new BadInputError(`--model anthropic: ${root.origin} does not speak the Anthropic API (GET ${where} ${why}); base_url must name it (https://api.anthropic.com)`)
    : new BadInputError(`--model ${backend}: ${root.origin} is not an OpenAI-compatible server (GET ${where} ${why}); base_url must name an OpenAI-style API (…/v1/completions)`);
  if (reply.status !== 200) throw notCompatible(`answered ${reply.status}`);
  let body: unknown;
  try {
    body = JSON.parse(reply.body);
  } catch {
    throw notCompatible(`answered ${String(reply.headers['content-type'] ?? 'no content type')}, not JSON`);
  }
  const data = (body as { data?: unknown }).data;
  if (!Array.isArray(data)) throw notCompatible('answered JSON without a `data` list of models');
  const ids = data.map((m) => (m as { id?: unknown }).id).filter((id): id is string => typeof id === 'string');
  if (!ids.includes(model)) {
    throw new BadInputError(`--model_args model=${model}: the server at ${root.origin} does not serve it (it lists ${ids.length === 0 ? 'no models' : ids.map((i) => `'${i}'`).join(', ')})`);
  }
  return data.find((m) => (m as { id?: unknown }).id === model) as Record<string, unknown>;
}

/**
 * Runs one request per item, all handed to the client at once (it bounds what is in flight).
 * When any fails for good, the others are still awaited and a PartialBatchError carries the
 * answers that came back, so the runner stores them before stopping.
 */
export async function runConcurrently<T>(count: number, one: (index: number) => Promise<T>): Promise<T[]> {
  const settled = await Promise.allSettled(Array.from({ length: count }, (_, i) => one(i)));
  const failed = settled.findIndex((s) => s.status === 'rejected');
  if (failed < 0) return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  const reason = (settled[failed] as PromiseRejectedResult).reason as Error;
  const failures = settled.filter((s) => s.status === 'rejected').length;
  const completed = settled.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
  const what = reason instanceof ApiRequestFailed || reason instanceof BadInputError ? reason.message : `${reason.name}: ${reason.message}`;
  throw new PartialBatchError(`${failures} of ${count} requests in the batch failed; the first: ${what}`, completed, { cause: reason });
}

/** Changes a server made, each recorded once (keyed by setting and value). */
export class Adjustments {
  private readonly seen = new Map<string, ModelAdjustment>();

  note(a: ModelAdjustment): void {
    const key = JSON.stringify([a.setting, a.used]);
    if (!this.seen.has(key)) this.seen.set(key, a);
  }

  list(): ModelAdjustment[] {
    return [...this.seen.values()];
  }
}
