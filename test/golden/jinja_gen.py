"""Golden renders for src/prompt/jinja: real Jinja2, configured exactly as lm-eval configures it.

Run with CPython 3.11 + Jinja2 3.1 from the repository root:

    python3 test/golden/jinja_gen.py <lm-evaluation-harness checkout> <benchmarks folder>

Writes test/golden/jinja_cases.json (template, context, rendered output or the
exception Jinja2 raised) and test/golden/jinja_library.json (every Jinja
template string in the lm-eval task library and whether Jinja2 compiles it).
Real task templates are read from the lm-eval checkout; real documents from the
original benchmark files (the downloads fixtures/SOURCES.md lists for
fixtures/benchmarks, in their own layout: arc/, boolq/, piqa/, lambada_openai/,
gsm8k/, mmlu/data/, truthfulqa/data/). Contexts encode a Python float as
{"$float": repr} because JSON cannot tell 1 from 1.0.
"""
import csv
import gzip
import json
import pathlib
import subprocess
import sys

import jinja2
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
if len(sys.argv) != 3:
    sys.exit("usage: python3 test/golden/jinja_gen.py <lm-evaluation-harness checkout> <benchmarks folder>")
LMEVAL = pathlib.Path(sys.argv[1])
DATA = pathlib.Path(sys.argv[2])


# lm_eval/utils.py
def regex_replace(string, pattern, repl, count: int = 0):
    import re

    return re.sub(pattern, repl, string, count=count)


env = jinja2.Environment(loader=jinja2.BaseLoader, undefined=jinja2.StrictUndefined, keep_trailing_newline=True)
env.filters["regex_replace"] = regex_replace


class Loader(yaml.SafeLoader):
    pass


Loader.add_multi_constructor("!", lambda loader, suffix, node: None)


def task_yaml(rel):
    """A task YAML with its includes merged (the including file wins), as lm-eval resolves them."""
    path = LMEVAL / "lm_eval" / "tasks" / rel
    d = yaml.load(path.read_text(encoding="utf-8"), Loader=Loader) or {}
    inc = d.pop("include", None)
    if inc:
        base = task_yaml(str((pathlib.Path(rel).parent / inc)))
        base.update(d)
        d = base
    return d


def enc(v):
    if isinstance(v, bool) or v is None or isinstance(v, (int, str)):
        return v
    if isinstance(v, float):
        return {"$float": repr(v)}
    if isinstance(v, dict):
        return {k: enc(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [enc(x) for x in v]
    raise TypeError(type(v))


def enc_literal(v):
    """A literal_eval result, with the Python types JSON lacks tagged."""
    if isinstance(v, tuple):
        return {"$tuple": [enc_literal(x) for x in v]}
    if isinstance(v, dict):
        return {"$dict": [[enc_literal(k), enc_literal(x)] for k, x in v.items()]}
    if isinstance(v, list):
        return [enc_literal(x) for x in v]
    return enc(v)


def literal(text):
    import ast

    try:
        return {"value": enc_literal(ast.literal_eval(text))}
    except SyntaxError:
        return {"error": "SyntaxError"}
    except ValueError:
        return {"error": "ValueError"}


def render(template, context):
    try:
        return {"output": env.from_string(template).render(**context)}
    except Exception as e:  # noqa: BLE001 - the exception itself is the golden value
        return {"error": type(e).__name__, "message": str(e)}


def jsonl(path, n):
    with open(path, encoding="utf-8") as f:
        return [json.loads(next(f)) for _ in range(n)]


# --- real documents, in the shape lm-eval sees them (the HF dataset rows) -----------------
def arc_docs():
    out = []
    for split, n in (("ARC-Easy/ARC-Easy-Dev.jsonl", 3), ("ARC-Challenge/ARC-Challenge-Dev.jsonl", 2)):
        out += jsonl(DATA / "arc" / split, n)
    with open(DATA / "arc/ARC-Challenge/ARC-Challenge-Dev.jsonl", encoding="utf-8") as f:
        out += [d for d in map(json.loads, f) if d["answerKey"] in "1234"][:2]
    return [
        {
            "id": d["id"],
            "question": d["question"]["stem"],
            "choices": {"text": [c["text"] for c in d["question"]["choices"]], "label": [c["label"] for c in d["question"]["choices"]]},
            "answerKey": d["answerKey"],
        }
        for d in out
    ]


def boolq_docs():
    return [{"question": d["question"], "passage": d["passage"], "idx": i, "label": int(d["answer"])} for i, d in enumerate(jsonl(DATA / "boolq/dev.jsonl", 3))]


def piqa_docs():
    labels = (DATA / "piqa/valid-labels.lst").read_text().split()
    return [dict(d, label=int(labels[i])) for i, d in enumerate(jsonl(DATA / "piqa/valid.jsonl", 3))]


def lambada_docs():
    return jsonl(DATA / "lambada_openai/lambada_test.jsonl", 3)


def gsm8k_docs():
    return jsonl(DATA / "gsm8k/test.jsonl", 2) + jsonl(DATA / "gsm8k/train.jsonl", 1)


def mmlu_docs():
    with open(DATA / "mmlu/data/dev/abstract_algebra_dev.csv", encoding="utf-8") as f:
        rows = list(csv.reader(f))[:3]
    return [{"question": r[0], "subject": "abstract_algebra", "choices": r[1:5], "answer": "ABCD".index(r[5])} for r in rows]


def truthfulqa_docs():
    data = json.loads((DATA / "truthfulqa/data/mc_task.json").read_text(encoding="utf-8"))[:2]
    tq = lambda m: {"choices": list(m.keys()), "labels": list(m.values())}  # noqa: E731
    return [{"question": d["question"], "mc1_targets": tq(d["mc1_targets"]), "mc2_targets": tq(d["mc2_targets"])} for d in data]


HELLASWAG = [
    {"query": "Roof shingle removal: A man is sitting on a roof. He", "choices": ["is using wrap to wrap a pair of skis.", "starts pulling up roofing on a roof."], "gold": 1, "label": "3"},
]
GSM8K_FEWSHOT = [{"question": "There are 15 trees in the grove. How many?", "target": "There are 15 trees originally. The answer is 6."}]


def real_cases():
    """(task file, fields, docs): the real templates of the tasks lmaudit ships, on real documents."""
    plan = [
        ("arc/arc_easy.yaml", ["doc_to_text", "doc_to_target", "doc_to_choice"], arc_docs()),
        ("arc/arc_challenge.yaml", ["doc_to_text", "doc_to_target", "doc_to_choice"], arc_docs()),
        ("arc/arc_challenge_chat.yaml", ["doc_to_text", "doc_to_target", "gen_prefix"], arc_docs()),
        ("super_glue/boolq/default.yaml", ["doc_to_text"], boolq_docs()),
        ("piqa/piqa.yaml", ["doc_to_text", "doc_to_choice"], piqa_docs()),
        ("lambada/lambada_openai.yaml", ["doc_to_text", "doc_to_target", "doc_to_decontamination_query"], lambada_docs()),
        ("gsm8k/gsm8k.yaml", ["doc_to_text", "doc_to_target"], gsm8k_docs()),
        ("gsm8k/gsm8k-cot.yaml", ["doc_to_text", "doc_to_target"], gsm8k_docs() + GSM8K_FEWSHOT),
        ("gsm8k/gsm8k-cot-llama.yaml", ["doc_to_text", "doc_to_target"], gsm8k_docs() + GSM8K_FEWSHOT),
        ("mmlu/default/mmlu_abstract_algebra.yaml", ["doc_to_text", "description"], mmlu_docs()),
        ("truthfulqa/truthfulqa_mc1.yaml", ["doc_to_text", "doc_to_choice"], truthfulqa_docs()),
        ("truthfulqa/truthfulqa_mc2.yaml", ["doc_to_choice"], truthfulqa_docs()),
        ("hellaswag/hellaswag.yaml", ["doc_to_text", "doc_to_target"], HELLASWAG),
        ("siqa/siqa.yaml", ["doc_to_text", "doc_to_choice", "doc_to_target"], [{"context": "Tracy didn't go home that evening.", "question": "What does Tracy need to do before this?", "answerA": "make a new plan", "answerB": "Go home and see Riley", "answerC": "Find somewhere to go", "label": "1"}]),
        ("headqa/headqa_en.yaml", ["doc_to_text", "doc_to_target", "doc_to_choice"], [{"qtext": "Which is it?", "ra": 3, "answers": [{"aid": 1, "atext": "one"}, {"aid": 2, "atext": "it's two"}, {"aid": 3, "atext": 'say "three"'}]}]),
        ("commonsense_qa/default.yaml", ["doc_to_text"], [{"question": "  Where would you put a plate?  ", "choices": {"text": ["cupboard", "table", "floor", "sink", "oven"], "label": list("ABCDE")}}]),
        ("openbookqa/openbookqa.yaml", ["doc_to_target", "doc_to_choice"], [{"choices": {"text": ["a", "b"], "label": ["A", "B"]}, "answerKey": " B"}]),
        ("catalan_bench/copa_ca.yaml", ["doc_to_text", "doc_to_target", "doc_to_choice"], [{"premise": "L'home va obrir l'aixeta.", "question": "effect", "choice1": "L'aigua va fluir.", "choice2": "El vàter es va omplir.", "label": 0}]),
        ("catalan_bench/coqcat.yaml", ["doc_to_text", "doc_to_target"], [{"story": "Era un dia.", "questions": ["Qui?", "Què?", "On?"], "answers": {"input_text": ["Ell", "Res", "Aquí"]}}]),
        ("japanese_leaderboard/ja_leaderboard_jsquad.yaml", ["description", "doc_to_text", "doc_to_target"], [{"context": "タイトル [SEP]  本文です。\u3000", "question": "何？", "answers": {"text": ["本文"]}}]),
        ("japanese_leaderboard/ja_leaderboard_mgsm.yaml", ["doc_to_text", "doc_to_target"], [{"question": "問題：りんごは何個？", "answer": "ステップごとの答え：3個"}]),
        ("llama3/instruct/mmlu_pro/mmlu_pro_biology.yaml", ["doc_to_text"], [{"question": " What is 2+2? ", "options": ["3", "4", "5"]}]),
        ("bangla/bangla_commonsenseqa.yaml", ["doc_to_text"], [{"question_stem": " প্রশ্ন? ", "choices": {"text": ["ক", "খ", "গ", "ঘ", "ঙ"], "label": list("ABCDE")}}]),
        ("winogender/winogender.yaml", ["doc_to_text", "doc_to_choice"], [{"sentence": "The nurse notified the patient that her shift would be ending.", "pronoun": "her", "occupation": "nurse", "participant": "patient"}]),
        ("french_bench/french_bench_grammar.yaml", ["doc_to_text", "doc_to_choice", "doc_to_target"], [{"question": "Il <...> beau.", "answerA": "fait", "answerB": "font", "answerC": "fais", "answerD": "faire", "answer": "A"}]),
        ("french_bench/french_bench_multifquad.yaml", ["doc_to_text", "doc_to_target"], [{"context": "C'est ça.", "question": "Quoi ?", "answers": {"text": ["ça", "cela"]}}]),
        ("french_bench/french_bench_reading_comp.yaml", ["doc_to_text", "doc_to_choice", "doc_to_target"], [{"context": "Texte.", "question": "Le chat est <...>.", "answerA": "noir", "answerB": "blanc", "answerC": "gris", "answerD": "roux", "answer": "C"}, {"context": "T", "question": "Pourquoi", "answerA": "a", "answerB": "b", "answerC": "c", "answerD": "d", "answer": "B"}]),
        ("mathqa/mathqa.yaml", ["doc_to_text", "doc_to_target"], [{"Problem": "2 + 2 = ?", "correct": "c"}]),
        ("super_glue/multirc/t5-prompt.yaml", ["doc_to_text", "doc_to_choice"], [{"question": "Q", "answer": "A", "paragraph": "P", "idx": {"paragraph": 0, "question": 7, "answer": 1}, "label": 1}]),
        ("super_glue/wic/default.yaml", ["doc_to_text"], [{"sentence1": "Do you want to come over to my place later?", "sentence2": "A political system with no place for the less prominent groups.", "start1": 31, "end1": 36, "label": 0}]),
        ("catalan_bench/mgsm_direct_ca.yaml", ["doc_to_text", "doc_to_target"], [{"question": "Quant?", "answer": None, "answer_number": 5}, {"question": "Quant?", "answer": "Pas a pas: 5", "answer_number": 5.0}]),
        ("minerva_math/minerva_math500.yaml", ["doc_to_text", "doc_to_target"], [{"problem": "What is $1+1$?", "answer": "2", "solution": "$\\boxed{2}$"}]),
        ("mmlu/flan_cot_fewshot/mmlu_abstract_algebra.yaml", ["doc_to_text", "doc_to_target", "description"], mmlu_docs()[:1] + [{"question": "Q?", "choices": ["a", "b", "c", "d"], "answer": 2, "target": "Let's think step by step. (C)"}]),
    ]
    commit = subprocess.run(["git", "-C", str(LMEVAL), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip() or "unknown"
    cases = []
    for rel, fields, docs in plan:
        cfg = task_yaml(rel)
        for field in fields:
            template = cfg.get(field)
            if not isinstance(template, str):
                continue
            for i, doc in enumerate(docs):
                cases.append({"id": f"{rel}:{field}:{i}", "source": f"lm_eval/tasks/{rel}@{commit}", "template": template, "context": enc(doc), **render(template, doc)})
    return cases


from jinja_infer import infer_context  # noqa: E402
from jinja_synthetic import LITERALS, SYNTHETIC  # noqa: E402  (the construct-by-construct cases)


def synthetic_cases():
    cases = []
    for i, (template, context) in enumerate(SYNTHETIC):
        cases.append({"id": f"synthetic:{i}", "template": template, "context": enc(context), **render(template, context)})
    return cases


def library_templates():
    fields = ["doc_to_text", "doc_to_target", "doc_to_choice", "description", "gen_prefix"]
    seen = {}
    for p in sorted((LMEVAL / "lm_eval" / "tasks").rglob("*")):
        if not p.is_file() or not (p.suffix == ".yaml" or p.name.endswith("_yaml")):
            continue
        d = yaml.load(p.read_text(encoding="utf-8"), Loader=Loader)
        if not isinstance(d, dict):
            continue
        for src in [d] + ([d["fewshot_config"]] if isinstance(d.get("fewshot_config"), dict) else []):
            for f in fields:
                v = src.get(f)
                if isinstance(v, str) and ("{{" in v or "{%" in v) and v not in seen:
                    entry = {"path": str(p.relative_to(LMEVAL)), "field": f}
                    try:
                        context = infer_context(env.parse(v))
                        entry.update(compiles=True, context=enc(context), **render(v, context))
                    except jinja2.TemplateSyntaxError:
                        entry["compiles"] = False
                    seen[v] = entry
    return [{"template": t, **meta} for t, meta in seen.items()]


def main():
    assert sys.version_info[:2] == (3, 11), sys.version
    meta = {"python": sys.version.split()[0], "jinja2": jinja2.__version__}
    out = ROOT / "test" / "golden"
    cases = real_cases() + synthetic_cases()
    for c in cases:
        text = c.get("output", "")
        if len(text) >= 2 and text[0] + text[-1] in ("[]", "()", "{}"):
            c["literal"] = literal(text)
    literals = [{"text": t, **literal(t)} for t in LITERALS]
    (out / "jinja_cases.json").write_text(json.dumps({**meta, "cases": cases, "literals": literals}, indent=1, ensure_ascii=True) + "\n")
    lib = library_templates()
    payload = json.dumps({**meta, "templates": lib}, ensure_ascii=True) + "\n"
    (out / "jinja_library.json.gz").write_bytes(gzip.compress(payload.encode(), mtime=0))
    print(f"{len(cases)} cases, {len(lib)} library templates")


if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    main()
