"""How Hugging Face `datasets` reads JSON Lines and CSV files (the json and csv builders behind lm-eval's
`dataset_path: json` / `csv` with data_files), for test/prompt/datasetsJson.test.ts: each case's file text and the rows
`load_dataset` gives, spelled so that ints and floats stay apart ({"float": 1.0}).

    HF_DATASETS_OFFLINE=1 HF_HOME=/tmp/hfh /work/venv-lmeval/bin/python test/golden/datasets_json_gen.py \
        > test/golden/datasets_json.json
"""
import json
import math
import os
import sys
import tempfile

import datasets

CASES = {
    "columns in first-seen order, a missing one None, ints and floats in one column floats": [
        {"q": "a", "x": 1, "y": [1, 2]}, {"q": "b", "x": 2.5, "z": "new", "y": [3.5]}, {"x": None, "q": "c", "y": []}],
    "a struct field and nested lists promoted; a bool beside an int kept as written; an int column with a null stays int": [
        {"s": {"a": 1}, "b": True, "n": 1, "l": [[1], [2.5]]}, {"s": {"a": 2.5}, "b": 1, "n": None, "l": [[3]]}],
    "mappings with different keys kept as written": [{"s": {"a": 1}}, {"s": {"b": 2}}],
    "mappings with the same keys take the first one's order": [{"s": {"a": 1, "b": 2}}, {"s": {"b": 3, "a": 4}}],
    "a string beside a number kept as written": [{"q": "a", "x": 1, "s": {"a": 1}}, {"q": "b", "x": "two", "s": {"b": 2.5, "a": 3}}],
    "a null mapping and an empty list": [{"s": {"a": 1, "c": [1]}}, {"s": {"a": 3, "c": []}}, {"s": None}],
    "NaN and Infinity None, in float, int and text columns": "NAN_CASE",
    "keys named __proto__ and constructor are columns": [{"__proto__": {"x": 1}, "constructor": 2, "q": "a"}, {"q": "b"}],
    "uniform rows unchanged": [{"question": "Q1", "answer": 0, "choices": ["a", "b"]}, {"question": "Q2", "answer": 1, "choices": ["c"]}],
}


def spelled(v):
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": v if math.isfinite(v) else repr(v)}
    if isinstance(v, list):
        return [spelled(x) for x in v]
    if isinstance(v, dict):
        return {"keys": list(v.keys()), "values": [spelled(x) for x in v.values()]}
    raise TypeError(type(v))


NAN_TEXT = '{"a": 1.5, "s": "x", "i": 2}\n{"a": NaN, "s": NaN, "i": NaN}\n{"a": Infinity, "s": "y", "i": 3}\n'

CSV_CASES = {
    "pandas types: ints with leading zeros and spaces, ints with a gap floats, NA spellings None, bools, mixed text": (
        'q,i,i0,f,fe,b,bn,s,na,sp,mix\n'
        'a,007,1,1.5,1e3,True,True,NA,x, 12,1\n'
        '"b, c",12,,2,2E-1,False,,None,null,13 ,two\n'
        '"",-3,3,nan,inf,TRUE,false,n/a,,14,3.5\n'),
    "quoted commas and line breaks, yes/no kept as text, NaN None in a float column": (
        'q,a,b,c,d\n"Hello, world",007,1.0,True,\n" lead",12,2.5,False,x\n"multi\nline",3,NaN,yes,y\n'),
}

out = []
csv_out = []
with tempfile.TemporaryDirectory() as tmp:
    for i, (name, text) in enumerate(CSV_CASES.items()):
        path = os.path.join(tmp, f"c{i}.csv")
        with open(path, "w", newline="") as f:
            f.write(text)
        ds = datasets.load_dataset("csv", data_files={"test": path})["test"]
        csv_out.append({"name": name, "csv": text, "rows": [spelled(r) for r in ds]})
    for i, (name, rows) in enumerate(CASES.items()):
        text = NAN_TEXT if rows == "NAN_CASE" else "".join(json.dumps(r) + "\n" for r in rows)
        path = os.path.join(tmp, f"c{i}.jsonl")
        with open(path, "w") as f:
            f.write(text)
        ds = datasets.load_dataset("json", data_files={"test": path})["test"]
        out.append({"name": name, "jsonl": text, "rows": [spelled(r) for r in ds]})
json.dump({"datasets": datasets.__version__, "cases": out, "csv_cases": csv_out}, sys.stdout, indent=1)
sys.stdout.write("\n")
