/**
 * The slow cross-checks (the lm-eval reference runs and the API backends against `lmaudit serve` on the larger
 * fixture model, kill-and-resume at many points) run with LMAUDIT_SLOW_TESTS=1, which .ci/run sets, so CI runs every
 * one of them; `npm test` without it skips them, saying how to run them, and stays within a few minutes.
 */
export const slowTests = process.env.LMAUDIT_SLOW_TESTS === '1';

/** A test's `skip` option: false with LMAUDIT_SLOW_TESTS=1, else the reason it is skipped. */
export const slowOnly: string | false = slowTests ? false : 'a slow cross-check: LMAUDIT_SLOW_TESTS=1 runs it (.ci/run does)';
