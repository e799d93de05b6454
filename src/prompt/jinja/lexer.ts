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
import { isPySpace } from '../../py/str.ts';
import { identifierPattern } from '../../py/identifier.ts';
import { decodeUnicodeEscape, PyEscapeError } from '../../py/stringEscapes.ts';
import { rewriteTokens } from './rewrites.ts';

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
/** Compiled on first use (py/identifier.ts says why). */
let nameRe: RegExp | undefined;
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
  return rewriteTokens(tokens);
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
    return [new Token(decodeLiteral(body, lineAt(at)), TOKEN_TYPES.StringLiteral), at + s[0].length];
  }
  const name = match((nameRe ??= new RegExp(identifierPattern(), 'uy')));
  if (name) return [new Token(name[0], TOKEN_TYPES.Identifier), at + name[0].length];
  for (const [op, type] of OPERATORS) {
    if (src.startsWith(op, at)) return [new Token(op, type), at + op.length];
  }
  throw new TemplateSyntaxError(`unexpected char ${JSON.stringify(ch)}`, lineAt(at));
}

/** A string literal's body decoded as Jinja2 does (src/py/stringEscapes.ts), a refusal reported at its line. */
function decodeLiteral(body: string, lineno: number): string {
  try {
    return decodeUnicodeEscape(body);
  } catch (e) {
    if (e instanceof PyEscapeError) throw new TemplateSyntaxError(e.message, lineno);
    throw e;
  }
}
