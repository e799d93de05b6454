"""The as-recorded rescoring's baseline: lm-eval 0.4.13's own scoring of a truthfulqa_gen samples file.

For every record of the file (bench/generate_lmeval_samples.py), lm-eval's own per-sample function,
lm_eval.tasks.truthfulqa.utils.process_results_gen(doc, [filtered response]), then lm-eval's own
aggregation (lm_eval.api.metrics.mean) and standard error (stderr_for_metric(mean, 100000), which is
mean_stderr) of each of its 12 metrics, in file order, as lm-eval's evaluator computes them. Prints
one JSON object: {"metric": [value, stderr], ...}, and the records read.

Usage: python rescore_lmeval_baseline.py SAMPLES.jsonl [LIMIT]
Exits 3 with a message when lm_eval cannot be imported (bench/rescore_lmeval.mjs then skips the row).
Without rouge_score (lm-eval's truthfulqa dependency) only the BLEU half runs, and "note" says so.
"""
import json
import sys

try:
    import numpy as np
    from lm_eval.api.metrics import mean, stderr_for_metric
except Exception as error:  # noqa: BLE001 - any import failure means there is no lm-eval to compare with
    print(f"lm_eval is not importable here ({error.__class__.__name__}: {error})", file=sys.stderr)
    sys.exit(3)

try:
    from lm_eval.tasks.truthfulqa import utils as truthfulqa

    HALF = None
except ModuleNotFoundError as missing:
    # truthfulqa's utils.py imports rouge_score (and it nltk) at the top; where it is not installed the
    # module is loaded with an empty stand-in for it and only its BLEU half is run: lm-eval's own bleu()
    # and the lines of process_results_gen that use it. That does less than lm-eval does (no ROUGE), so
    # the ratio against it is a lower bound.
    import types

    stand_in = types.ModuleType("rouge_score")
    stand_in.rouge_scorer = stand_in.scoring = types.ModuleType("rouge_score.stand_in")
    sys.modules["rouge_score"] = stand_in
    from lm_eval.tasks.truthfulqa import utils as truthfulqa

    HALF = f"{missing.name} is not installed: only the BLEU half of process_results_gen is run (a lower bound on lm-eval's time)"


def bleu_half(doc, results):
    """process_results_gen's BLEU lines, verbatim, around lm-eval's own bleu()."""
    completion = results[0]
    true_refs, false_refs = doc["correct_answers"], doc["incorrect_answers"]
    all_refs = true_refs + false_refs
    bleu_scores = [truthfulqa.bleu([[ref]], [completion]) for ref in all_refs]
    bleu_correct = np.nanmax(bleu_scores[: len(true_refs)])
    bleu_incorrect = np.nanmax(bleu_scores[len(true_refs) :])
    return {"bleu_max": bleu_correct, "bleu_acc": int(bleu_correct > bleu_incorrect), "bleu_diff": bleu_correct - bleu_incorrect}


def main() -> None:
    path = sys.argv[1]
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else None
    per_sample = truthfulqa.process_results_gen if HALF is None else bleu_half
    values: dict[str, list[float]] = {}
    records = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if limit is not None and records >= limit:
                break
            record = json.loads(line)
            records += 1
            for metric, value in per_sample(record["doc"], [record["filtered_resps"][0]]).items():
                values.setdefault(metric, []).append(value)
    out = {}
    for metric, xs in values.items():
        stderr = stderr_for_metric(mean, 100000)
        out[metric] = [float(mean(xs)), float(stderr(xs)) if stderr is not None else None]
    print(json.dumps({"records": records, "metrics": out, "note": HALF}))


if __name__ == "__main__":
    main()
