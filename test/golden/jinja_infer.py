"""Synthesise a plausible document for a template from its AST, so every template
of the lm-eval library can be rendered by Jinja2 and compared with lmaudit.

Static inference: a variable read as `x.a` or `x['a']` is a dict, `x[0]` or
`for y in x` or `x|join` a list, `x.strip()` or `x[1:]` a string, `x|int` a
digit string. It is a heuristic for coverage; whatever Jinja2 does with the
result (output or exception) is the golden value.
"""
from jinja2 import meta, nodes

STR_METHODS = {m for m in dir(str) if not m.startswith("_")}
LIST_FILTERS = {"join", "map", "list", "first", "last", "length", "count", "sort", "unique", "reverse", "select", "reject", "selectattr", "rejectattr", "sum", "max", "min", "batch", "slice"}
WORDS = ["Alpha beta.", "gamma, delta", "Epsilon? zeta", "eta theta iota", "kappa"]


class Shape:
    def __init__(self):
        self.kind = None
        self.keys = {}
        self.item = None

    def mark(self, kind):
        if self.kind in (None, "str") or kind == "dict":
            self.kind = kind if self.kind != "dict" else "dict"

    def item_shape(self):
        if self.item is None:
            self.item = Shape()
        return self.item

    def value(self, seed=0):
        if self.kind == "dict":
            return {k: s.value(seed + i) for i, (k, s) in enumerate(self.keys.items())}
        if self.kind == "list":
            if self.item is None:
                return list(WORDS)
            return [self.item.value(seed + i) for i in range(4)]
        if self.kind == "int":
            return 1 + seed % 3
        if self.kind == "digits":
            return str(1 + seed % 3)
        return "  " + WORDS[seed % len(WORDS)] + " ####  " + WORDS[(seed + 1) % len(WORDS)] + " [SEP] _ end.  "


def infer_context(template_ast):
    roots = {name: Shape() for name in meta.find_undeclared_variables(template_ast)}
    aliases = {}

    def shape_of(node):
        if isinstance(node, nodes.Name):
            return aliases.get(node.name) or roots.get(node.name)
        if isinstance(node, nodes.Getattr):
            s = shape_of(node.node)
            if s is None:
                return None
            if node.attr in STR_METHODS and s.kind != "dict":
                s.mark("list" if node.attr in ("index", "count") and s.kind == "list" else "str")
                return None
            s.mark("dict")
            return s.keys.setdefault(node.attr, Shape())
        if isinstance(node, nodes.Getitem):
            s = shape_of(node.node)
            if s is None:
                return None
            if isinstance(node.arg, nodes.Slice):
                s.mark("str")
                return None
            if isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str):
                s.mark("dict")
                return s.keys.setdefault(node.arg.value, Shape())
            s.mark("list")
            return s.item_shape()
        return None

    for node in template_ast.find_all(nodes.Node):
        if isinstance(node, nodes.For):
            s = shape_of(node.iter)
            if s is not None:
                s.mark("list")
                if isinstance(node.target, nodes.Name):
                    aliases[node.target.name] = s.item_shape()
        elif isinstance(node, nodes.Filter):
            s = shape_of(node.node)
            if s is not None:
                if node.name in LIST_FILTERS:
                    s.mark("list")
                elif node.name == "int":
                    s.kind = s.kind or "digits"
        elif isinstance(node, (nodes.Getattr, nodes.Getitem)):
            shape_of(node)
        elif isinstance(node, nodes.Compare):
            for operand in [node.expr] + [o.expr for o in node.ops]:
                s = shape_of(operand)
                others = [node.expr] + [o.expr for o in node.ops]
                if s is not None and s.kind is None and any(isinstance(o, nodes.Const) and type(o.value) is int for o in others):
                    s.kind = "int"
    return {name: s.value(i) for i, (name, s) in enumerate(sorted(roots.items()))}
