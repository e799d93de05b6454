/**
 * The onnx backend's token-level access (src/models/tokenAccess.ts) for `lmaudit serve`: per-position
 * log-probs with top-k from the worker's scoreTokens (the same float64 log-softmax the backend's
 * loglikelihood sums), and generation from token ids through the backend's own generation loop.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadChatTemplate, type ChatTemplate } from '../../prompt/chatTemplate.ts';
import type { PromptScores, TokenAccess, TokenGeneration, TokenGenerationSettings } from '../tokenAccess.ts';
import { generateRows, type LoopModel } from './generationLoop.ts';

export class OnnxTokenAccess implements TokenAccess {
  readonly maxTokenId: number;
  readonly eosTokenId: number | null;
  readonly specialTokens: TokenAccess['specialTokens'];
  private template: ChatTemplate | null | undefined;

  constructor(
    private readonly model: LoopModel,
    readonly maxLength: number,
    /** The folder holding tokenizer_config.json (its chat template and special tokens). */
    private readonly root: string,
  ) {
    this.maxTokenId = model.tok.facts.maxId;
    this.eosTokenId = model.tok.facts.eosTokenId;
    const facts = model.tok.facts;
    this.specialTokens = { bos: facts.bosToken, eos: facts.eosToken, pad: model.tok.decode([facts.padTokenId], false) };
  }

  encode(text: string, addSpecialTokens: boolean): number[] {
    return this.model.tok.encode(text, addSpecialTokens);
  }

  decode(ids: readonly number[], skipSpecialTokens: boolean): string {
    return this.model.tok.decode(ids, skipSpecialTokens);
  }

  chatTemplate(): ChatTemplate | null {
    if (this.template === undefined) {
      const config = join(this.root, 'tokenizer_config.json');
      // transformers renders with the config's special tokens as template variables; loadChatTemplate passes them.
      this.template = this.model.tok.facts.chatTemplate !== null && existsSync(config) ? loadChatTemplate(config) : null;
    }
    return this.template;
  }

  async scorePrompts(rows: readonly number[][], topK: number): Promise<PromptScores[]> {
    const scored = await this.model.thread.scoreTokens(rows.map((r) => [...r]), this.model.vocab, topK);
    return scored.map((s) => ({ logprobs: s.logprobs, top: s.top.map((pairs) => pairs.map(([id, logprob]) => ({ id, logprob }))) }));
  }

  async generateTokens(rows: readonly number[][], settings: TokenGenerationSettings): Promise<TokenGeneration[]> {
    const out = await generateRows(
      this.model,
      rows,
      { stops: settings.stop, maxNew: settings.maxNewTokens, doSample: settings.doSample, temperature: settings.temperature, topK: settings.topK, topP: settings.topP },
      // One seed per request (OpenAI's `seed`): a row draws the same whatever batch it rides in.
      rows.map(() => (settings.seed ?? 0) >>> 0),
    );
    return out.map((row) => ({ ids: row.generated.slice(0, row.used), text: row.text, finishReason: row.finishReason }));
  }
}
