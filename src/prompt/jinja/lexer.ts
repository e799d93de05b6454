/**
 * A tokenizer with Jinja2's lexing rules, emitting `@huggingface/jinja`'s
 * `Token`s so its parser can build the AST.
 *
 * Its own `tokenize` differs from Jinja2 where lm-eval prompts notice:
 * it drops a trailing newline (lm-eval sets keep_trailing_newline), keeps
 * `\r\n`, decodes string escapes the JavaScript way (Jinja2 uses Python's
 * `unicode-escape`, so `'\d'` stays `\d`), strips with JS whitespace, and
 * reads `1e5` as an int. Jinja2 3.1 `lexer.py` is the reference for the rules
 * below.
 */
import { Token, TOKEN_TYPES, type TokenType } from './hf.ts';
import { isPySpace } from './pystr.ts';

export class TemplateSyntaxError extends Error {
  constructor(
    message: string,
    readonly lineno: number,
  ) {
    super(`${message} (line ${lineno})`);
  }
}

// Longest first, as Jinja2's operator regex orders them.
const OPERATORS: [string, TokenType][] = [
  ['**', TOKEN_TYPES.ExponentiationBinaryOperator],
  ['//', TOKEN_TYPES.MultiplicativeBinaryOperator],
  ['==', TOKEN_TYPES.ComparisonBinaryOperator],
  ['!=', TOKEN_TYPES.ComparisonBinaryOperator],
  ['>=', TOKEN_TYPES.ComparisonBinaryOperator],
  ['<=', TOKEN_TYPES.ComparisonBinaryOperator],
  ['>', TOKEN_TYPES.ComparisonBinaryOperator],
  ['<', TOKEN_TYPES.ComparisonBinaryOperator],
  ['+', TOKEN_TYPES.AdditiveBinaryOperator],
  ['-', TOKEN_TYPES.AdditiveBinaryOperator],
  ['~', TOKEN_TYPES.AdditiveBinaryOperator],
  ['*', TOKEN_TYPES.MultiplicativeBinaryOperator],
  ['/', TOKEN_TYPES.MultiplicativeBinaryOperator],
  ['%', TOKEN_TYPES.MultiplicativeBinaryOperator],
  ['=', TOKEN_TYPES.Equals],
  ['(', TOKEN_TYPES.OpenParen],
  [')', TOKEN_TYPES.CloseParen],
  ['[', TOKEN_TYPES.OpenSquareBracket],
  [']', TOKEN_TYPES.CloseSquareBracket],
  ['{', TOKEN_TYPES.OpenCurlyBracket],
  ['}', TOKEN_TYPES.CloseCurlyBracket],
  [',', TOKEN_TYPES.Comma],
  ['.', TOKEN_TYPES.Dot],
  [':', TOKEN_TYPES.Colon],
  ['|', TOKEN_TYPES.Pipe],
];

const MAX_NESTING = 100;

const FLOAT_RE = /(\d+_)*\d+((\.(\d+_)*\d+)?[eE][+-]?(\d+_)*\d+|\.(\d+_)*\d+)/y;
const INT_RE = /(0[bB](_?[01])+|0[oO](_?[0-7])+|0[xX](_?[\da-fA-F])+|[1-9](_?\d)*|0(_?0)*)/y;
const NAME_RE = /[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*/uy;
const STRING_RE = /'([^'\\]*(?:\\.[^'\\]*)*)'|"([^"\\]*(?:\\.[^"\\]*)*)"/sy;
const RAW_BEGIN_RE = /\{%([-+]?)\s*raw\s*([-+]?)%\}/y;
const RAW_END_RE = /\{%([-+]?)\s*endraw\s*([-+]?)%\}/g;

function rstripPy(s: string): string {
  let end = s.length;
  while (end > 0 && isPySpace(s.charCodeAt(end - 1))) end--;
  return s.slice(0, end);
}

function skipPySpace(s: string, pos: number): number {
  while (pos < s.length && isPySpace(s.charCodeAt(pos))) pos++;
  return pos;
}

export function tokenizeJinja(source: string): Token[] {
  // Jinja2 normalises every newline of the template text to "\n" before lexing.
  const src = source.replace(/\r\n|\r/g, '\n');
  const tokens: Token[] = [];
  const lineAt = (pos: number): number => src.slice(0, pos).split('\n').length;
  let pos = 0;
  let stripNextText = false;

  const pushText = (text: string): void => {
    if (text.length > 0) tokens.push(new Token(text, TOKEN_TYPES.Text));
  };

  while (pos < src.length) {
    const open = src.slice(pos).search(/\{[{%#]/);
    const tagAt = open < 0 ? src.length : pos + open;
    let text = src.slice(pos, tagAt);
    if (stripNextText) text = text.slice(skipPySpace(text, 0));
    stripNextText = false;
    if (tagAt >= src.length) {
      pushText(text);
      break;
    }
    const kind = src[tagAt + 1]!;
    const sign = src[tagAt + 2];
    if (sign === '-') text = rstripPy(text);

    RAW_BEGIN_RE.lastIndex = tagAt;
    const raw = RAW_BEGIN_RE.exec(src);
    if (raw) {
      pushText(text);
      RAW_END_RE.lastIndex = RAW_BEGIN_RE.lastIndex;
      const end = RAW_END_RE.exec(src);
      if (!end) throw new TemplateSyntaxError('Missing end of raw directive', lineAt(tagAt));
      let body = src.slice(RAW_BEGIN_RE.lastIndex, end.index);
      if (raw[2] === '-') body = body.slice(skipPySpace(body, 0));
      if (end[1] === '-') body = rstripPy(body);
      pushText(body);
      pos = end.index + end[0].length;
      stripNextText = end[2] === '-';
      continue;
    }
    pushText(text);

    let cursor = tagAt + 2 + (sign === '-' || sign === '+' ? 1 : 0);
    if (kind === '#') {
      const close = src.indexOf('#}', cursor);
      if (close < 0) throw new TemplateSyntaxError('Missing end of comment tag', lineAt(tagAt));
      stripNextText = src[close - 1] === '-' && close - 1 >= cursor;
      tokens.push(new Token(src.slice(cursor, stripNextText ? close - 1 : close), TOKEN_TYPES.Comment));
      pos = close + 2;
      continue;
    }
    const isBlock = kind === '%';
    tokens.push(new Token(isBlock ? '{%' : '{{', isBlock ? TOKEN_TYPES.OpenStatement : TOKEN_TYPES.OpenExpression));
    const endTag = isBlock ? '%}' : '}}';
    const brackets: string[] = [];
    for (;;) {
      cursor = skipPySpace(src, cursor);
      if (cursor >= src.length) throw new TemplateSyntaxError(`unexpected end of template, expected '${endTag}'`, lineAt(tagAt));
      if (brackets.length === 0) {
        const stripped = src.startsWith(`-${endTag}`, cursor);
        // `+%}` (keep the newline despite trim_blocks) ends a block like `%}`; trim_blocks is off here anyway.
        const plus = isBlock && src.startsWith('+%}', cursor);
        if (stripped || plus || src.startsWith(endTag, cursor)) {
          tokens.push(new Token(endTag, isBlock ? TOKEN_TYPES.CloseStatement : TOKEN_TYPES.CloseExpression));
          cursor += endTag.length + (stripped || plus ? 1 : 0);
          stripNextText = stripped;
          break;
        }
      }
      const [token, next] = readToken(src, cursor, lineAt);
      if ('([{'.includes(token.value) && token.type !== TOKEN_TYPES.StringLiteral) {
        // CPython's parser gives up near this depth too (RecursionError); ours would overflow the JS stack.
        if (brackets.length >= MAX_NESTING) throw new TemplateSyntaxError('brackets nested too deeply', lineAt(cursor));
        brackets.push(token.value);
      }
      else if (')]}'.includes(token.value) && token.type !== TOKEN_TYPES.StringLiteral) {
        const expected = { ')': '(', ']': '[', '}': '{' }[token.value];
        if (brackets.pop() !== expected) throw new TemplateSyntaxError(`unexpected '${token.value}'`, lineAt(cursor));
      }
      tokens.push(token);
      cursor = next;
    }
    pos = cursor;
  }
  return markTupleLiterals(rewriteTestArguments(groupConcatenations(tokens)));
}

/** Filter-name prefix for a test that takes arguments (see rewriteTestArguments); NUL keeps it unspellable. */
export const TEST_FILTER_PREFIX = '\u0000is:';
export const NEGATED_TEST_FILTER_PREFIX = '\u0000isnot:';

/**
 * The library's parser reads `x is name` but not a test with arguments
 * (`x is divisibleby 3`, `x is sameas(y)`). Such a test is rewritten into a
 * filter call on the same operand, `x | <test>(args)`, which binds the same way
 * (both apply to the unary operand before them) and which the evaluator runs
 * as the test. Argument rules follow Jinja2's parse_test: a parenthesised
 * list, or one primary expression with its postfix.
 */
function rewriteTestArguments(tokens: Token[]): Token[] {
  const closeOf = matchBrackets(tokens);
  const out: Token[] = [];
  const isOpen = (t: Token | undefined): boolean =>
    t !== undefined && (t.type === TOKEN_TYPES.OpenParen || t.type === TOKEN_TYPES.OpenSquareBracket || t.type === TOKEN_TYPES.OpenCurlyBracket);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!(t.type === TOKEN_TYPES.Identifier && t.value === 'is')) {
      out.push(t);
      continue;
    }
    let j = i + 1;
    const negate = tokens[j]?.type === TOKEN_TYPES.Identifier && tokens[j]!.value === 'not';
    if (negate) j++;
    const name = tokens[j];
    const next = tokens[j + 1];
    if (name?.type !== TOKEN_TYPES.Identifier || next === undefined) {
      out.push(t);
      continue;
    }
    let argEnd = -1; // index of the last token of the argument(s)
    let parenthesised = false;
    if (next.type === TOKEN_TYPES.OpenParen) {
      argEnd = closeOf.get(j + 1) ?? -1;
      parenthesised = true;
    } else if (
      next.type === TOKEN_TYPES.StringLiteral || next.type === TOKEN_TYPES.NumericLiteral || isOpen(next) ||
      (next.type === TOKEN_TYPES.Identifier && !['else', 'or', 'and'].includes(next.value))
    ) {
      let k = isOpen(next) ? (closeOf.get(j + 1) ?? -1) : j + 1;
      if (next.type === TOKEN_TYPES.StringLiteral) while (tokens[k + 1]?.type === TOKEN_TYPES.StringLiteral) k++;
      for (;;) {
        const p = tokens[k + 1];
        if (p?.type === TOKEN_TYPES.Dot && tokens[k + 2] !== undefined) k += 2;
        else if (p !== undefined && (p.type === TOKEN_TYPES.OpenSquareBracket || p.type === TOKEN_TYPES.OpenParen) && closeOf.has(k + 1)) k = closeOf.get(k + 1)!;
        else break;
      }
      argEnd = k;
    }
    if (argEnd < 0) {
      out.push(t);
      continue;
    }
    out.push(new Token('|', TOKEN_TYPES.Pipe));
    out.push(new Token((negate ? NEGATED_TEST_FILTER_PREFIX : TEST_FILTER_PREFIX) + name.value, TOKEN_TYPES.Identifier));
    if (!parenthesised) out.push(new Token('(', TOKEN_TYPES.OpenParen));
    out.push(...tokens.slice(j + 1, argEnd + 1));
    if (!parenthesised) out.push(new Token(')', TOKEN_TYPES.CloseParen));
    i = argEnd;
  }
  return out;
}

/**
 * Jinja2 ranks `~` between `+ -` and `* /` (`1 + 2 ~ 'a'` is `1 + (2 ~ 'a')`);
 * the library's parser puts it level with `+`. Parenthesising each `~` chain
 * at its bracket depth gives the parser Jinja2's grouping.
 */
function groupConcatenations(tokens: Token[]): Token[] {
  const out: Token[] = [];
  type Frame = { segStart: number; hasConcat: boolean };
  let frames: Frame[] = [{ segStart: 0, hasConcat: false }];
  const top = (): Frame => frames[frames.length - 1]!;
  const closeSegment = (): void => {
    const f = top();
    if (f.hasConcat) {
      out.splice(f.segStart, 0, new Token('(', TOKEN_TYPES.OpenParen));
      out.push(new Token(')', TOKEN_TYPES.CloseParen));
    }
  };
  const endsOperand = (t: Token | undefined): boolean =>
    t !== undefined &&
    (t.type === TOKEN_TYPES.NumericLiteral || t.type === TOKEN_TYPES.StringLiteral || t.type === TOKEN_TYPES.CloseParen ||
      t.type === TOKEN_TYPES.CloseSquareBracket || t.type === TOKEN_TYPES.CloseCurlyBracket ||
      (t.type === TOKEN_TYPES.Identifier && !KEYWORDS.has(t.value)));
  for (const t of tokens) {
    const prev = out[out.length - 1];
    const boundary =
      (t.type === TOKEN_TYPES.AdditiveBinaryOperator && t.value !== '~' && endsOperand(prev)) ||
      t.type === TOKEN_TYPES.ComparisonBinaryOperator || t.type === TOKEN_TYPES.Comma || t.type === TOKEN_TYPES.Colon ||
      t.type === TOKEN_TYPES.Equals ||
      (t.type === TOKEN_TYPES.Identifier && KEYWORDS.has(t.value) && !(t.value === 'not' && prev?.value === 'is') && t.value !== 'is');
    if (t.type === TOKEN_TYPES.OpenExpression || t.type === TOKEN_TYPES.OpenStatement) {
      out.push(t);
      frames = [{ segStart: out.length, hasConcat: false }];
    } else if (t.type === TOKEN_TYPES.CloseExpression || t.type === TOKEN_TYPES.CloseStatement ||
      t.type === TOKEN_TYPES.CloseParen || t.type === TOKEN_TYPES.CloseSquareBracket || t.type === TOKEN_TYPES.CloseCurlyBracket) {
      closeSegment();
      if (frames.length > 1) frames.pop();
      out.push(t);
    } else if (t.type === TOKEN_TYPES.OpenParen || t.type === TOKEN_TYPES.OpenSquareBracket || t.type === TOKEN_TYPES.OpenCurlyBracket) {
      out.push(t);
      frames.push({ segStart: out.length, hasConcat: false });
    } else if (boundary) {
      closeSegment();
      out.push(t);
      frames[frames.length - 1] = { segStart: out.length, hasConcat: false };
    } else {
      if (t.type === TOKEN_TYPES.AdditiveBinaryOperator && t.value === '~') top().hasConcat = true;
      out.push(t);
    }
  }
  return out;
}

/**
 * A name no template can spell (names cannot contain NUL): the evaluator reads
 * a call to it as a tuple display. The library's parser has no syntax for `()`
 * or a one-element `(x,)`, but it parses calls with a trailing comma.
 */
export const TUPLE_CALLEE = '\u0000tuple';

/** Words after which `(` opens a parenthesised expression, not a call. */
const KEYWORDS = new Set(['in', 'if', 'else', 'elif', 'and', 'or', 'not', 'is', 'for', 'set', 'filter', 'with']);

function markTupleLiterals(tokens: Token[]): Token[] {
  const closeOf = matchBrackets(tokens);
  const out: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.type === TOKEN_TYPES.OpenParen) {
      const prev = out[out.length - 1];
      const isCall =
        prev !== undefined &&
        (prev.type === TOKEN_TYPES.CloseParen ||
          prev.type === TOKEN_TYPES.CloseSquareBracket ||
          prev.type === TOKEN_TYPES.StringLiteral ||
          prev.type === TOKEN_TYPES.NumericLiteral ||
          (prev.type === TOKEN_TYPES.Identifier && !KEYWORDS.has(prev.value)));
      const close = closeOf.get(i);
      // `()` or a parenthesised group whose last top-level token is a comma.
      const tuple = close !== undefined && (close === i + 1 || tokens[close - 1]!.type === TOKEN_TYPES.Comma);
      if (!isCall && tuple) out.push(new Token(TUPLE_CALLEE, TOKEN_TYPES.Identifier));
    }
    out.push(t);
  }
  return out;
}

/** Index of each opening paren → index of its closing paren (the lexer has already checked the nesting). */
function matchBrackets(tokens: Token[]): Map<number, number> {
  const closeOf = new Map<number, number>();
  const stack: number[] = [];
  tokens.forEach((t, i) => {
    if (t.type === TOKEN_TYPES.OpenParen || t.type === TOKEN_TYPES.OpenSquareBracket || t.type === TOKEN_TYPES.OpenCurlyBracket) stack.push(i);
    else if (t.type === TOKEN_TYPES.CloseParen || t.type === TOKEN_TYPES.CloseSquareBracket || t.type === TOKEN_TYPES.CloseCurlyBracket) {
      const open = stack.pop();
      if (open !== undefined) closeOf.set(open, i);
    } else if (t.type === TOKEN_TYPES.CloseExpression || t.type === TOKEN_TYPES.CloseStatement) stack.length = 0;
  });
  return closeOf;
}

function readToken(src: string, at: number, lineAt: (pos: number) => number): [Token, number] {
  const match = (re: RegExp): RegExpExecArray | null => {
    re.lastIndex = at;
    return re.exec(src);
  };
  const ch = src[at]!;
  if (/\d/.test(ch)) {
    // Jinja2's float rule refuses a match right after '.', so `x.0.1` stays item access.
    const f = src[at - 1] === '.' ? null : match(FLOAT_RE);
    if (f) {
      const text = f[0].replace(/_/g, '');
      const normalised = text.includes('.') ? text : text.replace(/[eE]/, '.0e');
      return [new Token(normalised, TOKEN_TYPES.NumericLiteral), at + f[0].length];
    }
    const i = match(INT_RE);
    if (i) {
      const digits = i[0].replace(/_/g, '');
      const value = /^0[bBoOxX]/.test(digits) ? BigInt(digits.toLowerCase()).toString() : String(Number(digits));
      return [new Token(value, TOKEN_TYPES.NumericLiteral), at + i[0].length];
    }
  }
  if (ch === "'" || ch === '"') {
    const s = match(STRING_RE);
    if (!s) throw new TemplateSyntaxError('unexpected char ' + JSON.stringify(ch), lineAt(at));
    const body = s[1] ?? s[2] ?? '';
    return [new Token(decodeUnicodeEscape(body, lineAt(at)), TOKEN_TYPES.StringLiteral), at + s[0].length];
  }
  const name = match(NAME_RE);
  if (name) return [new Token(name[0], TOKEN_TYPES.Identifier), at + name[0].length];
  for (const [op, type] of OPERATORS) {
    if (src.startsWith(op, at)) return [new Token(op, type), at + op.length];
  }
  throw new TemplateSyntaxError(`unexpected char ${JSON.stringify(ch)}`, lineAt(at));
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\n': '',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

/**
 * Jinja2 decodes string literals with `.encode('ascii', 'backslashreplace')
 * .decode('unicode-escape')`. Non-ASCII text survives (it is escaped, then
 * unescaped), except right after a lone backslash, where Python's quirk turns
 * `\é` into the four characters `\xe9`; unknown escapes keep their backslash.
 */
export function decodeUnicodeEscape(body: string, lineno: number, pythonSource = false): string {
  // For a Python source literal (ast.literal_eval) the text is decoded as is, without the ASCII round trip.
  let ascii = pythonSource ? body : '';
  for (const ch of pythonSource ? '' : body) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) ascii += ch;
    else if (cp < 0x100) ascii += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) ascii += `\\u${cp.toString(16).padStart(4, '0')}`;
    else ascii += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  let out = '';
  for (let i = 0; i < ascii.length; i++) {
    const c = ascii[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = ascii[++i];
    if (e === undefined) throw new TemplateSyntaxError('\\ at end of string', lineno);
    if (e in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[e];
    else if (/[0-7]/.test(e)) {
      let digits = e;
      while (digits.length < 3 && /[0-7]/.test(ascii[i + 1] ?? '')) digits += ascii[++i];
      out += String.fromCodePoint(parseInt(digits, 8));
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const width = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = ascii.slice(i + 1, i + 1 + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) {
        throw new TemplateSyntaxError(`truncated \\${e}${'X'.repeat(width)} escape`, lineno);
      }
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) throw new TemplateSyntaxError('illegal Unicode character', lineno);
      out += String.fromCodePoint(cp);
      i += width;
    } else if (e === 'N') {
      throw new TemplateSyntaxError('\\N{...} escapes (Unicode character names) are not supported', lineno);
    } else out += `\\${e}`;
  }
  return out;
}
