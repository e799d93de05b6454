/**
 * HELM's stats that every run writes about the request rather than the answer's quality (token counts, runtime,
 * truncation, finish reasons, reference counts): a per-instance one is a record field, not a metric, and a run-level
 * one is no reported score.
 */
const BOOKKEEPING = /^(num_prompt_tokens|num_completion_tokens|num_output_tokens|inference_runtime|batch_size|finish_reason_.*|num_train_instances|prompt_truncated|max_prob|logprob|num_perplexity_tokens|num_bytes|num_references|num_train_trials|num_instances|training_co2_cost|training_energy_cost)$/;

/** Whether a HELM stat name (the name, not the 'name,split=…' key) is bookkeeping. */
export function isHelmBookkeepingStat(name: string): boolean {
  return BOOKKEEPING.test(name);
}
