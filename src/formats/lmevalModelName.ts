/**
 * lm-eval's model_name_sanitized (lm_eval/utils.py sanitize_model_name, 0.4.13): each run of the characters
 * a file name cannot hold becomes '__'; letter case is kept. It names the output folder and is written to the
 * results file beside model_name, from which it is derived.
 */
export function sanitizeModelName(name: string): string {
  return name.replace(/["<>:/|\\?*[\]]+/g, '__');
}
