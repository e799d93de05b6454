"""How lm-eval 0.4.13 reads task YAML (lm_eval/tasks/_yaml_loader.py: yaml.CSafeLoader with libyaml, else
FullLoader; `!function` a tag of its own), for test/tasks/pyyaml.test.ts: each case's text and the value PyYAML
gives, in a JSON spelling that keeps int and float apart ({"int": "120"}, {"float": 0.5}), or null where PyYAML
refuses the text.

Cases: the implicit scalars where js-yaml's YAML 1.1 schema and PyYAML's resolvers disagree (y/n, sexagesimal with a
leading zero, signed floats without a leading digit), a repeated key (PyYAML keeps the last), and continuation lines
of quoted scalars and flow collections indented less than their node, as lm-eval's own bbh/cot_fewshot, acpbench and
evalita_llm task files have them (libyaml never checks that indentation).

    /work/venv-lmeval/bin/python test/golden/pyyaml_gen.py > test/golden/pyyaml.json
"""
import json
import math
import sys

import yaml

SCALARS = ["y", "Y", "n", "N", "yes", "No", "on", "OFF", "true", "02:00", "0:30", "1:30", "-1:30", "190:20:30",
           "01:30.5", "1:30.5", ".5", "-.5", "+.5", "1.", "1e3", "1.0e+3", "1_000", "017", "0x1F", "0b101", "-0",
           ".inf", "-.Inf", ".nan", "~", "null", "", "0o17", "1:60"]

CASES = [{"name": f"scalar {s!r}", "text": f"k: {s}\n"} for s in SCALARS] + [
    {"name": "a flow list of y/n choices", "text": "doc_to_choice: [y, n, Y, N]\n"},
    {"name": "a repeated key keeps its last value", "text": "task: a\nnum_fewshot: 1\nnum_fewshot: 3\n"},
    {"name": "a repeated key in a nested mapping", "text": "metadata:\n  version: 1\n  version: 2.0\n"},
    {"name": "a double-quoted scalar continued at column 0 under a sequence item",
     "text": "samples:\n  - question: \"Given the plan: a,\n  b and\nc?\"\n    answer: \"yes\"\n"},
    {"name": "a single-quoted scalar continued at column 0",
     "text": "items:\n  - context: 'There are several cities,\nsome of them\n  airports.'\n    n: 2\n"},
    {"name": "a flow collection whose lines are indented less than its key",
     "text": "fewshot_config:\n  samples: [\n    {\n      \"input\": \"not ( True ) is\",\n      \"target\": \"False\"\n    },\n  {\"input\": \"x\",\n\"target\": \"y\"}\n  ]\n  sampler: first_n\n"},
]


class Loader(yaml.CSafeLoader if getattr(yaml, "__with_libyaml__", False) else yaml.FullLoader):
    pass


Loader.add_constructor("!function", lambda loader, node: {"!function": loader.construct_scalar(node)})


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
        return {k: spelled(x) for k, x in v.items()}
    raise TypeError(type(v))


for case in CASES:
    try:
        case["value"] = spelled(yaml.load(case["text"], Loader=Loader))
    except yaml.YAMLError:
        case["value"] = None
json.dump({"pyyaml": yaml.__version__, "libyaml": getattr(yaml, "__with_libyaml__", False), "cases": CASES},
          sys.stdout, ensure_ascii=False, indent=1)
sys.stdout.write("\n")
