/**
 * Keys of an lm-eval results entry that describe it and are no score: the display name (alias), the task name and
 * the sample counts lm-eval 0.4.x writes beside the metrics (`name`, `sample_len`, `sample_count`), a group's
 * `samples`. lm-eval's printed table leaves them out. One list for every reader: the audit's reported scores
 * (shown as scores they read as `name "arc_easy" (a string, not a number); sample_len 20`) and as-recorded's
 * "printed numbers" (a group that prints none is not one to reproduce).
 */
export const LMEVAL_BOOKKEEPING_KEYS: ReadonlySet<string> = new Set(['alias', 'name', 'sample_len', 'sample_count', 'samples']);
