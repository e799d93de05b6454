/**
 * Named prompt variants a grid axis can switch on. A variant is a system instruction (lm-eval's
 * --system_instruction: prepended as text, or the system message under a chat template) and the
 * generation budget it needs; the audit table recognises it again from the provenance, so a row
 * reads "reasoning on" instead of the instruction's text.
 */
export interface PromptVariant {
  system_instruction: string;
  /** max_gen_toks for generation tasks while the variant is on (reasoning needs room). */
  max_gen_toks: number;
  description: string;
}

export const PROMPT_VARIANTS = {
  reasoning: {
    system_instruction: 'Think step by step, then give the answer as a single letter.',
    max_gen_toks: 256,
    description: 'reasoning elicited by a system instruction, with max_gen_toks raised to 256 for generation tasks',
  },
} as const satisfies Record<string, PromptVariant>;

export type PromptVariantName = keyof typeof PROMPT_VARIANTS;
