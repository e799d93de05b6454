/**
 * Evaluates the `@huggingface/jinja` AST with Jinja2's Python semantics over
 * the values of `values.ts`. The library's own `Interpreter` renders with JS
 * semantics (`1.0` → "1", `[1]` → "[1]", lenient undefined), which lm-eval
 * prompts cannot tolerate; its parser is reused as is.
 */
import { UnsupportedError } from '../../errors.ts';
import { getAttribute, getItem } from './access.ts';
import { applyFilter } from './filters.ts';
import { GLOBALS } from './globals.ts';
import type * as A from './hf.ts';
import { pySlice, sliceArray } from '../../py/str.ts';
import { TUPLE_CALLEE } from './rewrites.ts';
import { binaryOp, unaryOp } from './operators.ts';
import { runTest } from './tests.ts';
import {
  PyCallable, PyDict, PyFloat, PyObject, PyTuple, PyTypeError, PyUndefined, PyValueError, failUndefined, numberOf,
  pyIter, pyStr, truthy, typeName, type PyArgs, type PyValue,
} from '../../py/values.ts';

/** Guards against templates that would run (practically) forever; real task templates take a few hundred steps. */
const MAX_STEPS = 2_000_000;

class Scope {
  readonly vars = new Map<string, PyValue>();
  constructor(readonly parent: Scope | null) {}
  lookup(name: string): PyValue | undefined {
    for (let s: Scope | null = this; s; s = s.parent) if (s.vars.has(name)) return s.vars.get(name);
    return undefined;
  }
}

const COMPARISONS = new Set(['==', '!=', '<', '>', '<=', '>=', 'in', 'not in']);
const isComparison = (node: A.Node): boolean =>
  node.type === 'BinaryExpression' && COMPARISONS.has((node as A.BinaryNode).operator.value);

const CONSTANTS: Record<string, PyValue> = { true: true, True: true, false: false, False: false, none: null, None: null };

export class Renderer {
  private steps = 0;

  render(program: A.ProgramNode, context: Map<string, PyValue>): string {
    const top = new Scope(null);
    for (const [k, v] of context) top.vars.set(k, v);
    return this.block(program.body, top);
  }

  private block(body: A.Node[], scope: Scope): string {
    let out = '';
    for (const node of body) out += this.statement(node, scope);
    return out;
  }

  private statement(node: A.Node, scope: Scope): string {
    switch (node.type) {
      case 'Comment':
        return '';
      case 'If': {
        const n = node as A.IfNode;
        return this.block(truthy(this.expr(n.test, scope)) ? n.body : n.alternate, scope);
      }
      case 'For':
        return this.forLoop(node as A.ForNode, scope);
      case 'Set':
        this.set(node as A.SetNode, scope);
        return '';
      case 'FilterStatement': {
        const n = node as A.FilterStatementNode;
        return pyStr(this.filter(this.block(n.body, scope), n.filter, scope));
      }
      case 'Break': // rejected at compile time: Jinja2 needs the loopcontrols extension for these
      case 'Continue':
      case 'Macro':
      case 'CallStatement':
        throw new UnsupportedError(`{% ${node.type.replace('Statement', '').toLowerCase()} %} is not supported in task templates`);
      default:
        return pyStr(this.expr(node, scope));
    }
  }

  private forLoop(n: A.ForNode, scope: Scope): string {
    let iterable = n.iterable;
    let condition: A.Node | null = null;
    if (iterable.type === 'SelectExpression') {
      condition = (iterable as A.SelectNode).test;
      iterable = (iterable as A.SelectNode).lhs;
    }
    let items = pyIter(this.expr(iterable, scope));
    if (condition) {
      items = items.filter((item) => {
        const s = new Scope(scope);
        this.bind(n.loopvar, item, s);
        return truthy(this.expr(condition!, s));
      });
    }
    if (items.length === 0) return this.block(n.defaultBlock, scope);
    let out = '';
    for (let i = 0; i < items.length; i++) {
      this.tick();
      const s = new Scope(scope);
      s.vars.set('loop', loopObject(items, i));
      this.bind(n.loopvar, items[i]!, s);
      out += this.block(n.body, s);
    }
    return out;
  }

  private bind(target: A.Node, value: PyValue, scope: Scope): void {
    if (target.type === 'Identifier') {
      scope.vars.set((target as A.ValueNode<string>).value, value);
      return;
    }
    if (target.type === 'TupleLiteral') {
      const names = (target as A.ValueNode<A.Node[]>).value;
      const items = pyIter(value);
      if (items.length !== names.length) {
        throw new PyValueError(`${items.length > names.length ? 'too many' : 'not enough'} values to unpack (expected ${names.length}, got ${items.length})`);
      }
      names.forEach((name, i) => this.bind(name, items[i]!, scope));
      return;
    }
    throw new PyTypeError(`cannot assign to ${target.type}`);
  }

  private set(n: A.SetNode, scope: Scope): void {
    const value = n.value === null ? this.block(n.body, scope) : this.expr(n.value, scope);
    if (n.assignee.type === 'MemberExpression') {
      const m = n.assignee as A.MemberNode;
      const target = this.expr(m.object, scope);
      if (!(target instanceof PyObject) || !target.mutable || m.computed || m.property.type !== 'Identifier') {
        throw new PyTypeError('cannot assign attribute on non-namespace object');
      }
      target.attrs.set((m.property as A.ValueNode<string>).value, value);
      return;
    }
    this.bind(n.assignee, value, scope);
  }

  private tick(): void {
    if (++this.steps > MAX_STEPS) throw new UnsupportedError(`template exceeded ${MAX_STEPS} evaluation steps`);
  }

  expr(node: A.Node, scope: Scope): PyValue {
    this.tick();
    switch (node.type) {
      case 'StringLiteral':
        return (node as A.ValueNode<string>).value;
      case 'IntegerLiteral':
        return (node as A.ValueNode<number>).value;
      case 'FloatLiteral':
        return new PyFloat((node as A.ValueNode<number>).value);
      case 'ArrayLiteral':
        return (node as A.ValueNode<A.Node[]>).value.map((x) => this.expr(x, scope));
      case 'TupleLiteral':
        return new PyTuple((node as A.ValueNode<A.Node[]>).value.map((x) => this.expr(x, scope)));
      case 'ObjectLiteral': {
        const d = new PyDict();
        for (const [k, v] of (node as A.ValueNode<Map<A.Node, A.Node>>).value) d.set(this.expr(k, scope), this.expr(v, scope));
        return d;
      }
      case 'Identifier':
        return this.lookup((node as A.ValueNode<string>).value, scope);
      case 'MemberExpression':
        return this.member(node as A.MemberNode, scope);
      case 'CallExpression':
        return this.call(node as A.CallNode, scope);
      case 'BinaryExpression': {
        const n = node as A.BinaryNode;
        const op = n.operator.value;
        const left = this.expr(n.left, scope);
        if (op === 'and') return truthy(left) ? this.expr(n.right, scope) : left;
        if (op === 'or') return truthy(left) ? left : this.expr(n.right, scope);
        if (COMPARISONS.has(op) && isComparison(n.left)) return this.comparisonChain(n, scope);
        return binaryOp(op, left, this.expr(n.right, scope));
      }
      case 'UnaryExpression': {
        const n = node as A.UnaryNode;
        return unaryOp(n.operator.value, this.expr(n.argument, scope));
      }
      case 'FilterExpression': {
        const n = node as A.FilterNode;
        return this.filter(this.expr(n.operand, scope), n.filter, scope);
      }
      case 'TestExpression': {
        const n = node as A.TestNode;
        const result = runTest(n.test.value, this.expr(n.operand, scope));
        return n.negate ? !result : result;
      }
      case 'Ternary': {
        const n = node as A.TernaryNode;
        return truthy(this.expr(n.condition, scope)) ? this.expr(n.trueExpr, scope) : this.expr(n.falseExpr, scope);
      }
      case 'SelectExpression': {
        // `a if b` without else: Jinja2 yields its plain (non-strict) Undefined when b is false.
        const n = node as A.SelectNode;
        return truthy(this.expr(n.test, scope)) ? this.expr(n.lhs, scope) : new PyUndefined('the inline if-expression evaluated to false and no else section was defined.', false);
      }
      default:
        throw new UnsupportedError(`template construct ${node.type} is not supported`);
    }
  }

  /**
   * `a < b < c` is Python's chain (`a < b and b < c`, b evaluated once); the
   * library's parser nests it as `(a < b) < c`, which no template means.
   */
  private comparisonChain(n: A.BinaryNode, scope: Scope): PyValue {
    const links: { op: string; right: A.Node }[] = [];
    let first: A.Node = n;
    while (isComparison(first)) {
      const b = first as A.BinaryNode;
      links.unshift({ op: b.operator.value, right: b.right });
      first = b.left;
    }
    let left = this.expr(first, scope);
    for (const { op, right } of links) {
      const value = this.expr(right, scope);
      if (!truthy(binaryOp(op, left, value))) return false;
      left = value;
    }
    return true;
  }

  private lookup(name: string, scope: Scope): PyValue {
    if (Object.hasOwn(CONSTANTS, name)) return CONSTANTS[name]!;
    const v = scope.lookup(name);
    if (v !== undefined) return v;
    if (Object.hasOwn(GLOBALS, name)) return GLOBALS[name]!;
    return new PyUndefined(`'${name}' is undefined`);
  }

  private member(n: A.MemberNode, scope: Scope): PyValue {
    const obj = this.expr(n.object, scope);
    if (!n.computed && n.property.type === 'Identifier') return getAttribute(obj, (n.property as A.ValueNode<string>).value);
    if (n.property.type === 'SliceExpression') return this.slice(obj, n.property as A.SliceNode, scope);
    return getItem(obj, this.expr(n.property, scope));
  }

  private slice(obj: PyValue, s: A.SliceNode, scope: Scope): PyValue {
    if (obj instanceof PyUndefined) failUndefined(obj);
    const bound = (b: A.Node | undefined): number | null => {
      if (b === undefined) return null;
      const v = this.expr(b, scope);
      if (v === null) return null;
      const i = numberOf(v);
      if (i === undefined || !Number.isInteger(i) || v instanceof PyFloat) {
        if (v instanceof PyUndefined) failUndefined(v);
        throw new PyTypeError('slice indices must be integers or None or have an __index__ method');
      }
      return i;
    };
    const [start, stop, step] = [bound(s.start), bound(s.stop), bound(s.step)];
    if (step === 0) throw new PyValueError('slice step cannot be zero');
    if (typeof obj === 'string') return pySlice(obj, start, stop, step);
    if (Array.isArray(obj)) return sliceArray(obj, start, stop, step);
    if (obj instanceof PyTuple) return new PyTuple(sliceArray(obj.items, start, stop, step));
    return new PyUndefined(`${typeName(obj)} object has no element slice(${start}, ${stop}, ${step})`);
  }

  private args(nodes: A.Node[], scope: Scope): PyArgs {
    const args: PyValue[] = [];
    const kwargs = new Map<string, PyValue>();
    for (const a of nodes) {
      if (a.type === 'KeywordArgumentExpression') {
        const k = a as A.KeywordNode;
        kwargs.set(k.key.value, this.expr(k.value, scope));
      } else if (a.type === 'SpreadExpression') {
        args.push(...pyIter(this.expr((a as unknown as { argument: A.Node }).argument, scope)));
      } else if (a.type === 'KeywordSpreadExpression') {
        const d = this.expr((a as unknown as { argument: A.Node }).argument, scope);
        if (!(d instanceof PyDict)) throw new PyTypeError('argument after ** must be a mapping');
        for (const [k, v] of d.items()) kwargs.set(pyStr(k), v);
      } else args.push(this.expr(a, scope));
    }
    return { args, kwargs };
  }

  private call(n: A.CallNode, scope: Scope): PyValue {
    if (n.callee.type === 'Identifier' && (n.callee as A.ValueNode<string>).value === TUPLE_CALLEE) {
      return new PyTuple(n.args.map((a) => this.expr(a, scope)));
    }
    const callee = this.expr(n.callee, scope);
    if (callee instanceof PyUndefined) failUndefined(callee);
    if (!(callee instanceof PyCallable)) throw new PyTypeError(`'${typeName(callee)}' object is not callable`);
    return callee.call(this.args(n.args, scope));
  }

  private filter(value: PyValue, f: A.Node, scope: Scope): PyValue {
    if (f.type === 'Identifier') return applyFilter((f as A.ValueNode<string>).value, value);
    const c = f as A.CallNode;
    return applyFilter((c.callee as A.ValueNode<string>).value, value, this.args(c.args, scope));
  }
}

function loopObject(items: PyValue[], i: number): PyObject {
  const n = items.length;
  const attrs = new Map<string, PyValue>([
    ['index', i + 1],
    ['index0', i],
    ['revindex', n - i],
    ['revindex0', n - i - 1],
    ['first', i === 0],
    ['last', i === n - 1],
    ['length', n],
    ['depth', 1],
    ['depth0', 0],
    ['previtem', i > 0 ? items[i - 1]! : new PyUndefined('there is no previous item')],
    ['nextitem', i < n - 1 ? items[i + 1]! : new PyUndefined('there is no next item')],
    ['cycle', new PyCallable('loop.cycle', ({ args }) => {
      if (args.length === 0) throw new PyTypeError('no items for cycling given');
      return args[i % args.length]!;
    })],
  ]);
  return new PyObject('LoopContext', attrs);
}
