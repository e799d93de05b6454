"""Cases for src/py/canonicalJson.ts, written by CPython's own json module.

Each line of canonical_cases.jsonl is {"dumps": json.dumps(v, ensure_ascii=False),
"indent2": json.dumps(v, indent=2, ensure_ascii=False)} for a value v chosen to reach
every rule of the canonical form: escapes of every control character, quotes and
backslashes, non-ASCII and astral text, U+2028 and DEL, ints and floats in every repr
form (exponents, -0.0, NaN, Infinity), empty and nested containers, keys that need
escaping, and real lm-eval record shapes. Run: python3 test/py/make_canonical_cases.py
"""
import json
import math
import pathlib

controls = "".join(chr(c) for c in range(0x20))
values = [
    {},
    [],
    {"a": {}, "b": [], "c": [[]], "d": [{}]},
    {"text": controls, "q": 'say "hi" \\ back\\slash', "slash": "a/b"},
    {"unicode": "é ü 中文 😀 \u2028 \u2029 \x7f \ufeff \u00a0", "key \"quoted\"\n": 1},
    {"ints": [0, -1, 7, 10**30, -(10**20)], "floats": [0.0, -0.0, 1.0, 1.5, 1e16, 1e-5, 1.0e-7, 123456789.125, 2.5e-300, 1e300]},
    {"nan": float("nan"), "inf": math.inf, "ninf": -math.inf},
    {"bools": [True, False, None], "nested": {"x": [1, [2, [3, {"y": "z"}]]]}},
    {"doc_id": 0, "doc": {"question": "What is 2+2?\nAnswer:", "choices": ["3", "4"], "label": 1},
     "target": 1, "arguments": {"gen_args_0": {"arg_0": "Q: 2+2?\n\nA:", "arg_1": " 4"}},
     "resps": [[["-1.5", "True"]]], "filtered_resps": [["-1.5", "True"]], "filter": "none",
     "metrics": ["acc"], "doc_hash": "a" * 64, "prompt_hash": "b" * 64, "target_hash": "c" * 64, "acc": 1.0},
    "a string",
    12,
    -3.25,
    ["mixed", 1, 2.0, None, True, {"k": "v"}],
    {"0": "integer-like key first in JS", "b": 2, "1": "another"},
    {"dup": 1, "deep": [[[[[[[[[[["ten"]]]]]]]]]]]},
    {"escape_end": "ends with a backslash \\", "after": "x"},
    {"quote_end": 'ends with a quote "', "tab\tkey": "\t"},
]
out = pathlib.Path(__file__).with_name("canonical_cases.jsonl")
with out.open("w", encoding="utf-8") as f:
    for v in values:
        f.write(json.dumps({"dumps": json.dumps(v, ensure_ascii=False), "indent2": json.dumps(v, indent=2, ensure_ascii=False)}, ensure_ascii=False) + "\n")
print(f"wrote {len(values)} cases to {out}")
