/**
 * The seam to `@huggingface/jinja`: its parser builds our AST. The package
 * exports `parse` but not its `Token` class or AST classes, so tokens are
 * built structurally here and AST nodes are read through the shapes below
 * (each names the fields of the library's class of the same `type`).
 */
import { parse } from '@huggingface/jinja';

export const TOKEN_TYPES = {
  Text: 'Text',
  NumericLiteral: 'NumericLiteral',
  StringLiteral: 'StringLiteral',
  Identifier: 'Identifier',
  Equals: 'Equals',
  OpenParen: 'OpenParen',
  CloseParen: 'CloseParen',
  OpenStatement: 'OpenStatement',
  CloseStatement: 'CloseStatement',
  OpenExpression: 'OpenExpression',
  CloseExpression: 'CloseExpression',
  OpenSquareBracket: 'OpenSquareBracket',
  CloseSquareBracket: 'CloseSquareBracket',
  OpenCurlyBracket: 'OpenCurlyBracket',
  CloseCurlyBracket: 'CloseCurlyBracket',
  Comma: 'Comma',
  Dot: 'Dot',
  Colon: 'Colon',
  Pipe: 'Pipe',
  CallOperator: 'CallOperator',
  AdditiveBinaryOperator: 'AdditiveBinaryOperator',
  MultiplicativeBinaryOperator: 'MultiplicativeBinaryOperator',
  ExponentiationBinaryOperator: 'ExponentiationBinaryOperator',
  ComparisonBinaryOperator: 'ComparisonBinaryOperator',
  UnaryOperator: 'UnaryOperator',
  Comment: 'Comment',
} as const;
export type TokenType = keyof typeof TOKEN_TYPES;

export class Token {
  constructor(
    public value: string,
    public type: TokenType,
  ) {}
}

export interface Node {
  type: string;
}
export interface ProgramNode extends Node {
  body: Node[];
}

/** Tokens → AST, by the library's parser. */
export function parseTokens(tokens: Token[]): ProgramNode {
  return parse(tokens as Parameters<typeof parse>[0]) as unknown as ProgramNode;
}

// Node shapes, by `type`.
export interface IfNode extends Node { test: Node; body: Node[]; alternate: Node[] }
export interface ForNode extends Node { loopvar: Node; iterable: Node; body: Node[]; defaultBlock: Node[] }
export interface SetNode extends Node { assignee: Node; value: Node | null; body: Node[] }
export interface MemberNode extends Node { object: Node; property: Node; computed: boolean }
export interface CallNode extends Node { callee: Node; args: Node[] }
export interface ValueNode<T> extends Node { value: T }
export interface BinaryNode extends Node { operator: { value: string }; left: Node; right: Node }
export interface UnaryNode extends Node { operator: { value: string }; argument: Node }
export interface FilterNode extends Node { operand: Node; filter: Node }
export interface FilterStatementNode extends Node { filter: Node; body: Node[] }
export interface SelectNode extends Node { lhs: Node; test: Node }
export interface TestNode extends Node { operand: Node; negate: boolean; test: ValueNode<string> }
export interface SliceNode extends Node { start?: Node; stop?: Node; step?: Node }
export interface KeywordNode extends Node { key: ValueNode<string>; value: Node }
export interface TernaryNode extends Node { condition: Node; trueExpr: Node; falseExpr: Node }
