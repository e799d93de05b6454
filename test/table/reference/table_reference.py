"""Reference numbers for test/table/importedRuns.test.ts, in plain Python over the same per-item scores.

    python3 test/table/reference/table_reference.py <external root> <fixtures root> > test/table/reference/table_reference.json

<external root> is the rebuilt fixtures/external tree (test/helpers/fixtures.ts externalFixture('')).
Per item: Mistral winogrande (write_out) is right when the gold's logit is the largest; asdiv (lm-eval samples)
when the response is greedy. Cells: mean, stderr = sample std (n-1) / sqrt(n), 95% CI mean +- 1.959963984540054 * stderr
clamped to [0, 1]. Pythia (results only): the reported numbers, CI unclamped. Mistral truthfulqa_gen: the per-item
metrics lm-eval recorded (see below), with the interactions between the prompt change and the metric.
"""
import json, math, sys

Z = 1.959963984540054
ext, fixtures = sys.argv[1], sys.argv[2]

def cell(values):
    n = len(values)
    m = sum(values) / n
    sd = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1))
    se = sd / math.sqrt(n)
    return {"score": m, "stderr": se, "ci95": [max(0.0, m - Z * se), min(1.0, m + Z * se)], "n": n}

def winogrande(path):
    out = []
    for d in json.load(open(path)):
        logits = [d[k] for k in sorted((k for k in d if k.startswith("logit_")), key=lambda k: int(k[6:]))]
        out.append(1.0 if max(range(len(logits)), key=lambda i: logits[i]) == d["truth"] else 0.0)
    return out

slurm = f"{ext}/lm-evaluation-harness/pr1567-slurmevals"
standard = cell(winogrande(f"{slurm}/mistral/winogrande_write_out_info.json"))
shuffled = cell(winogrande(f"{slurm}/mistralShuffle/question_shuffle_winogrande_write_out_info.json"))
target, gap = 0.48, 0.033
rows = {"winogrande": standard, "question_shuffle_winogrande": shuffled}
mistral = {
    "rows": rows,
    "column_spread": abs(standard["score"] - shuffled["score"]),
    "gap_times": abs(standard["score"] - shuffled["score"]) / gap,
    "reach": sorted(k for k, c in rows.items() if c["ci95"][0] <= target <= c["ci95"][1]),
}

def asdiv(path):
    return [1.0 if json.loads(line)["resps"][0][0][1] == "True" else 0.0 for line in open(path)]

base = f"{fixtures}/lmeval/pr2236-asdiv"
asdiv_rows = {
    "asdiv": cell(asdiv(f"{base}/asdiv/meta-llama__Meta-Llama-3-8B-Instruct/samples_asdiv_2024-08-21T03-44-09.494230.jsonl")),
    "asdiv_cot": cell(asdiv(f"{base}/asdiv_cot/meta-llama__Meta-Llama-3-8B-Instruct/samples_asdiv_2024-08-21T03-41-58.320355.jsonl")),
}

# Pythia 160m, 0-shot vs 5-shot results files: reported acc and acc_norm of every task both report.
zero = json.load(open(f"{ext}/pythia/zero-shot/160m_step143000.json"))["results"]
five = json.load(open(f"{ext}/pythia/five-shot/160m-5shot_step143000.json"))["results"]
pythia_target, pythia_tol = 0.5, 0.005
pythia = {}
for task in sorted(set(zero) & set(five)):
    rows = {}
    for shots, res in (("0-shot", zero[task]), ("5-shot", five[task])):
        cells = {}
        for k, v in res.items():
            if "stderr" in k or not isinstance(v, (int, float)):
                continue
            se = res.get(f"{k}_stderr")
            cells[k] = {"score": v, "stderr": se, "ci95": None if se is None else [v - Z * se, v + Z * se]}
        rows[shots] = cells
    metrics = [m for m in rows["0-shot"] if all(0 <= r[m]["score"] <= 1 for r in rows.values() if m in r)]
    metrics += [m for m in rows["5-shot"] if m not in metrics and all(0 <= r[m]["score"] <= 1 for r in rows.values() if m in r)]
    cells = [(shots, m, rows[shots][m]) for shots in rows for m in metrics if m in rows[shots]]
    hi = max(cells, key=lambda c: c[2]["score"])
    lo = min(cells, key=lambda c: c[2]["score"])
    reach = []
    for shots, m, c in cells:
        a, b = c["ci95"] if c["ci95"] is not None else (c["score"], c["score"])
        if a - pythia_tol <= pythia_target <= b + pythia_tol:
            reach.append([shots, m])
    pythia[task] = {"metrics": metrics, "rows": rows, "span": hi[2]["score"] - lo[2]["score"], "highest": [hi[0], hi[1]], "lowest": [lo[0], lo[1]], "reach": reach}

# Mistral-7B truthfulqa_gen, standard vs question-shuffled prompts (write_out): no gold answer is recorded, so the
# columns are the per-item metrics lm-eval recorded that are rates (every value in [0, 1] in both runs), by name.
# Interactions (standard -> shuffled), for each pair of columns i < j, on the documents both runs hold:
# d = (shuffled_i - standard_i) - (shuffled_j - standard_j), mean, sample std (n-1) / sqrt(n), mean +- Z * se;
# each reading's own effect (shuffled_i - standard_i) with the same paired interval.
def write_out(path):
    return {str(d["doc_id"]): {k: float(v) for k, v in d.items() if k not in ("doc_id", "truth") and not k.startswith(("prompt_", "logit_"))} for d in json.load(open(path))}

tqa_runs = {
    "truthfulqa_gen": write_out(f"{slurm}/mistral/truthfulqa_gen_write_out_info.json"),
    "question_shuffle_truthfulqa_gen": write_out(f"{slurm}/mistralShuffle/question_shuffle_truthfulqa_gen_write_out_info.json"),
}
names = sorted({m for items in tqa_runs.values() for d in items.values() for m in d})
tqa_metrics = [m for m in names if all(0 <= d[m] <= 1 for items in tqa_runs.values() for d in items.values() if m in d)]
tqa_rows = {label: {m: cell([d[m] for d in items.values()]) for m in tqa_metrics} for label, items in tqa_runs.items()}
tqa_cells = [(label, m, c["score"]) for label, r in tqa_rows.items() for m, c in r.items()]
tqa_hi = max(tqa_cells, key=lambda c: c[2])
tqa_lo = min(tqa_cells, key=lambda c: c[2])
tqa_target = 0.5
a_items, b_items = tqa_runs["truthfulqa_gen"], tqa_runs["question_shuffle_truthfulqa_gen"]
shared = [doc for doc in a_items if doc in b_items]
def paired(d):
    n = len(d)
    m = sum(d) / n
    se = math.sqrt(sum((v - m) ** 2 for v in d) / (n - 1)) / math.sqrt(n)
    return m, se, [m - Z * se, m + Z * se]

interactions = []
for i in range(len(tqa_metrics)):
    for j in range(i + 1, len(tqa_metrics)):
        mi, mj = tqa_metrics[i], tqa_metrics[j]
        effect_i = [b_items[x][mi] - a_items[x][mi] for x in shared]
        effect_j = [b_items[x][mj] - a_items[x][mj] for x in shared]
        d = [ei - ej for ei, ej in zip(effect_i, effect_j)]
        (m, se, ci), (m_i, se_i, ci_i), (m_j, se_j, ci_j) = paired(d), paired(effect_i), paired(effect_j)
        interactions.append({
            "readings": [mi, mj], "n": len(d),
            "effects": [m_i, m_j], "effect_stderr": [se_i, se_j], "effect_ci95": [ci_i, ci_j],
            "difference": m, "stderr": se, "ci95": ci,
        })
truthfulqa = {
    "metrics": tqa_metrics,
    "rows": tqa_rows,
    "row_spreads": {label: max(c["score"] for c in r.values()) - min(c["score"] for c in r.values()) for label, r in tqa_rows.items()},
    "column_spreads": {m: max(r[m]["score"] for r in tqa_rows.values()) - min(r[m]["score"] for r in tqa_rows.values()) for m in tqa_metrics},
    "span": tqa_hi[2] - tqa_lo[2],
    "highest": [tqa_hi[0], tqa_hi[1]],
    "lowest": [tqa_lo[0], tqa_lo[1]],
    "gap_times": (tqa_hi[2] - tqa_lo[2]) / gap,
    "reach": [[label, m] for label, r in tqa_rows.items() for m, c in r.items() if c["ci95"][0] <= tqa_target <= c["ci95"][1]],
    "interactions": interactions,
}

json.dump({"mistral": mistral, "asdiv": asdiv_rows, "pythia": pythia, "truthfulqa": truthfulqa}, sys.stdout, indent=1)
print()
