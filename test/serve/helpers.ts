/** What lm-eval's local-completions does with a /v1/completions reply, and small HTTP helpers for the serve tests. */

export interface EchoReply {
  choices: Array<{ index: number; text: string; finish_reason: string; logprobs: { tokens: string[]; token_logprobs: Array<number | null>; top_logprobs: Array<Record<string, number> | null>; text_offset: number[] } | null }>;
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/**
 * lm_eval/models/openai_completions.py `parse_logprobs` (0.4.13): `sum(token_logprobs[ctxlen:-1])`, and
 * is_greedy when at every scored position the token's logprob equals `max(top_logprobs[pos].values())`.
 */
export function parseLogprobs(reply: EchoReply, ctxlen: number): { logprob: number; isGreedy: boolean } {
  const lp = reply.choices[0]!.logprobs!;
  const values = lp.token_logprobs.slice(ctxlen, -1) as number[];
  const tops = lp.top_logprobs.slice(ctxlen, -1) as Array<Record<string, number>>;
  let logprob = 0;
  for (const v of values) logprob += v;
  const isGreedy = values.every((v, i) => v === Math.max(...Object.values(tops[i]!)));
  return { logprob, isGreedy };
}

export async function postJson(url: string, body: unknown, init: RequestInit = {}): Promise<{ status: number; headers: Headers; json: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), ...init });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: JSON.parse(text) as unknown };
}
