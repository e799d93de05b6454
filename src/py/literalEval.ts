/**
 * Python's `ast.literal_eval` (3.11) for the text a template renders: lm-eval
 * turns a rendered `doc_to_choice` (e.g. `['a', "it's"]`) and a bracketed
 * `doc_to_target` back into Python objects this way (docs lmeval-prompts.md
 * §5, §12). Strings, ints, floats, True/False/None, lists, tuples and dicts
 * are reproduced; sets, bytes and complex numbers are refused (no task
 * template renders them).
 */
import { UnsupportedError } from '../errors.ts';
import { identifierCharClass, identifierPattern } from './identifier.ts';
import { decodeUnicodeEscape, PyEscapeError } from './stringEscapes.ts';
import { PyBigInt, PyDict, PyFloat, PyTuple, type PyValue } from './values.ts';

/** What CPython raises: SyntaxError for text that does not parse, ValueError for a non-literal expression. */
export class LiteralEvalError extends Error {
  constructor(
    readonly kind: 'SyntaxError' | 'ValueError',
    message: string,
  ) {
    super(`${kind}: ${message}`);
  }
}

type Tok =
  | { t: 'str'; v: string; bytes: boolean; f: boolean }
  | { t: 'num'; v: PyValue }
  | { t: 'name'; v: string }
  | { t: 'op'; v: string }
  | { t: 'end' };

const syntax = (m: string): never => {
  throw new LiteralEvalError('SyntaxError', m);
};
const malformed = (): never => {
  throw new LiteralEvalError('ValueError', 'malformed node or string');
};

const DIGITS = '\\d(?:_?\\d)*';
const FLOAT_RE = new RegExp(`(?:${DIGITS}\\.(?:${DIGITS})?|\\.${DIGITS})(?:[eE][+-]?${DIGITS})?|${DIGITS}[eE][+-]?${DIGITS}`, 'y');
const INT_RE = /0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|[1-9](?:_?\d)*|0(?:_?0)*/y;
/** Compiled on first use (identifier.ts says why). */
let identifierRegexes: { name: RegExp; char: RegExp } | undefined;
const identifiers = () => (identifierRegexes ??= { name: new RegExp(identifierPattern(), 'uy'), char: new RegExp(`^[${identifierCharClass()}]`, 'u') });
/** A character that may continue an identifier: right after a number it makes the number invalid. */
const STRING_START = /(?:[rR][bBfF]?|[bBfF][rR]?|[uU])?(?:'''|"""|'|")/y;

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  let depth = 0;
  const at = (re: RegExp): RegExpExecArray | null => {
    re.lastIndex = i;
    return re.exec(src);
  };
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t' || c === '\f') {
      i++;
      continue;
    }
    if (c === '\\' && src[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (c === '\n' || c === '\r') {
      // Outside brackets a newline ends the expression; only blank lines may follow.
      if (depth === 0 && out.length > 0 && /\S/.test(src.slice(i).replace(/#[^\n]*/g, ''))) syntax('invalid syntax');
      i++;
      continue;
    }
    const s = at(STRING_START);
    if (s) {
      const prefix = s[0].replace(/['"]+$/, '').toLowerCase();
      const quote = s[0].slice(prefix.length);
      const raw = prefix.includes('r');
      let j = i + s[0].length;
      let body = '';
      for (;;) {
        if (j >= src.length) syntax('unterminated string literal');
        if (src.startsWith(quote, j)) break;
        const ch = src[j]!;
        if (ch === '\n' && quote.length === 1) syntax('unterminated string literal');
        if (ch === '\\') {
          body += src.slice(j, j + 2);
          j += 2;
          continue;
        }
        body += ch;
        j++;
      }
      i = j + quote.length;
      let v = body;
      if (!raw) {
        try {
          v = decodeUnicodeEscape(body.replace(/\r\n?/g, '\n'), true);
        } catch (e) {
          if (!(e instanceof PyEscapeError)) throw e;
          if (/\\N/.test(e.message)) throw new UnsupportedError('\\N{...} escapes are not supported');
          // The text is one expression, so the refusal is on its line 1 (CPython's message names it too).
          syntax(`${e.message} (line 1)`);
        }
      }
      out.push({ t: 'str', v, bytes: prefix.includes('b'), f: prefix.includes('f') });
      continue;
    }
    const f = at(FLOAT_RE);
    const n = f ? null : at(INT_RE);
    if (f || n) {
      const text = (f ?? n)![0];
      i += text.length;
      if (/[jJ]/.test(src[i] ?? '')) throw new UnsupportedError('complex literals are not supported');
      if (identifiers().char.test(src[i] ?? '')) {
        syntax(/^0\d/.test(text + src[i]) ? 'leading zeros in decimal integer literals are not permitted' : 'invalid decimal literal');
      }
      const clean = text.replace(/_/g, '');
      out.push({ t: 'num', v: f ? new PyFloat(Number(clean)) : Number(/^0[xob]/i.test(clean) ? BigInt(clean.toLowerCase()) : clean) });
      continue;
    }
    const name = at(identifiers().name);
    if (name) {
      out.push({ t: 'name', v: name[0] });
      i += name[0].length;
      continue;
    }
    if ('([{'.includes(c)) depth++;
    if (')]}'.includes(c)) depth--;
    if (c === '!' && src[i + 1] !== '=') syntax("invalid syntax ('!')");
    if ('()[]{},:+-|&*/%<>=!^@~.'.includes(c)) {
      out.push({ t: 'op', v: c });
      i++;
      continue;
    }
    syntax(`invalid character '${c}' (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`);
  }
  out.push({ t: 'end' });
  return out;
}

const CONTINUING_WORDS = new Set(['if', 'and', 'or', 'in', 'is', 'not']);

class Parser {
  private i = 0;
  private notLiteral = false;
  constructor(private readonly toks: Tok[]) {}

  private peek(): Tok {
    return this.toks[this.i]!;
  }
  private isOp(v: string): boolean {
    const t = this.peek();
    return t.t === 'op' && t.v === v;
  }
  private expectOp(v: string): void {
    if (!this.isOp(v)) syntax('invalid syntax');
    this.i++;
  }

  /** The whole input: an expression, or a bare tuple (`1, 2`) as eval mode allows. */
  top(): PyValue {
    if (this.peek().t === 'end') syntax('invalid syntax');
    const items = this.sequence('end');
    if (this.peek().t !== 'end') syntax('invalid syntax');
    if (this.notLiteral) malformed();
    return items.trailingComma || items.values.length > 1 ? new PyTuple(items.values) : items.values[0]!;
  }

  private sequence(close: string): { values: PyValue[]; trailingComma: boolean } {
    const values: PyValue[] = [];
    let trailingComma = false;
    const atClose = (): boolean => (close === 'end' ? this.peek().t === 'end' : this.isOp(close));
    while (!atClose()) {
      values.push(this.value());
      trailingComma = false;
      if (!this.isOp(',')) break;
      this.i++;
      trailingComma = true;
    }
    return { values, trailingComma };
  }

  private value(): PyValue {
    if (this.isOp('+') || this.isOp('-')) {
      const negative = this.isOp('-');
      this.i++;
      if (this.isOp('+') || this.isOp('-')) {
        this.value(); // a sign applied to a signed number is not a literal, once it parses
        malformed();
      }
      const operandIsNumber = this.peek().t === 'num' || this.isOp('(');
      const v = this.atom();
      if (!operandIsNumber || typeof v === 'boolean') malformed();
      if (typeof v === 'number') return negative ? -v : v;
      if (v instanceof PyFloat) return new PyFloat(negative ? -v.value : v.value);
      return malformed();
    }
    const v = this.atom();
    this.rejectContinuation();
    return v;
  }

  /**
   * A literal followed by an operator, a subscript or a call is a valid Python
   * expression but not a literal (ValueError), unless the text stops right after
   * the operator (SyntaxError). The full expression grammar is not needed to
   * tell these apart for the inputs templates produce.
   */
  private rejectContinuation(): void {
    const t = this.peek();
    const continues = (t.t === 'op' && '[(.+-|&*/%<>=!^@~'.includes(t.v)) || (t.t === 'name' && CONTINUING_WORDS.has(t.v));
    if (!continues) return;
    const after = this.toks[this.i + 1]!;
    if (after.t === 'end' || (t.t === 'op' && t.v === '[' && after.t === 'op' && after.v === ']')) syntax('invalid syntax');
    malformed();
  }

  private atom(): PyValue {
    const t = this.peek();
    this.i++;
    switch (t.t) {
      case 'str': {
        let v = t.v;
        let { bytes, f } = t;
        for (let n = this.peek(); n.t === 'str'; n = this.peek()) {
          if (n.bytes !== bytes) syntax('cannot mix bytes and nonbytes literals');
          v += n.v;
          f = f || n.f;
          this.i++;
        }
        if (f) malformed();
        if (bytes) throw new UnsupportedError('bytes literals are not supported');
        return v;
      }
      case 'num':
        return t.v;
      case 'name':
        if (t.v === 'True') return true;
        if (t.v === 'False') return false;
        if (t.v === 'None') return null;
        if (t.v === 'set' && this.isOp('(')) throw new UnsupportedError('set literals are not supported');
        // A bare name parses (CPython checks the whole text's syntax first) but is not a literal.
        this.notLiteral = true;
        return null;
      case 'op':
        if (t.v === '(') {
          if (this.isOp(')')) {
            this.i++;
            return new PyTuple([]);
          }
          const { values, trailingComma } = this.sequence(')');
          this.expectOp(')');
          return trailingComma || values.length > 1 ? new PyTuple(values) : values[0]!;
        }
        if (t.v === '[') {
          const { values } = this.sequence(']');
          this.expectOp(']');
          return values;
        }
        if (t.v === '{') return this.dict();
        return syntax('invalid syntax');
      default:
        return syntax('invalid syntax');
    }
  }

  private dict(): PyValue {
    const d = new PyDict();
    while (!this.isOp('}')) {
      const k = this.value();
      if (!this.isOp(':')) throw new UnsupportedError('set literals are not supported');
      this.i++;
      const v = this.value();
      try {
        d.set(k, v);
      } catch {
        throw new LiteralEvalError('ValueError', 'unhashable dict key');
      }
      if (!this.isOp(',')) break;
      this.i++;
    }
    this.expectOp('}');
    return d;
  }
}

/** `ast.literal_eval(text)`. Throws LiteralEvalError where CPython raises SyntaxError or ValueError. */
export function literalEval(text: string): PyValue {
  return new Parser(tokenize(text.replace(/^[ \t]+/, ''))).top();
}

/** A literal's value as a document value: lists for tuples, objects for dicts, floats as `PyFloat`. */
export function toDocValue(v: PyValue): unknown {
  if (v instanceof PyTuple) return v.items.map(toDocValue);
  if (Array.isArray(v)) return v.map(toDocValue);
  if (v instanceof PyDict) return Object.fromEntries(v.items().map(([k, x]) => [String(k), toDocValue(x)]));
  return v;
}

/** `ast.literal_eval(text)` for callers that want document values back (see toDocValue). */
export function literalEvalDocValue(text: string): unknown {
  return toDocValue(literalEval(text));
}

/** A document value with Python's floats and big ints as plain JSON numbers (for data read back, not re-rendered). */
export function plainNumbers(v: unknown): unknown {
  if (v instanceof PyFloat) return v.value;
  if (v instanceof PyBigInt) return Number(v.value);
  if (Array.isArray(v)) return v.map(plainNumbers);
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plainNumbers(x)]));
  }
  return v;
}
