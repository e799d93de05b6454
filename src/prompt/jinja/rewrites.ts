/**
 * Token-stream rewrites that let `@huggingface/jinja`'s parser build the tree
 * Jinja2 would build: `~` precedence, tests with arguments, `()`/`(x,)` tuples.
 * Each works on the bracket structure only, so it cannot change what a
 * template that the library already parses correctly means.
 */
import { Token, TOKEN_TYPES } from './hf.ts';

export function rewriteTokens(tokens: Token[]): Token[] {
  return markTupleLiterals(rewriteTestArguments(groupConcatenations(tokens)));
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
