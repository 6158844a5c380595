import type { Attributes } from '@opentelemetry/api';
import {
  ATTR_DB_COLLECTION_NAME,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_SUMMARY,
  ATTR_DB_QUERY_TEXT,
} from '@opentelemetry/semantic-conventions';
import type { CompiledQuery, OperationNode } from 'kysely';

// The words that name an operation, and those after which a table's name comes.
const OPERATIONS = new Set(['select', 'insert', 'update', 'delete', 'merge']);
const BEFORE_TARGET = new Set(['from', 'into', 'join', 'update']);
// Words that may follow those and name no table (ON CONFLICT DO UPDATE SET, FROM LATERAL).
const NOT_TARGETS = new Set(['set', 'lateral', 'only', 'where', 'values', 'default']);
// The longest summary the conventions allow.
const MAX_SUMMARY = 255;

// Tokens of SQL: quoted identifiers, string literals, words, parameters, and single characters.
const TOKEN = /"(?:[^"]|"")*"|'(?:[^']|'')*'|[A-Za-z_][A-Za-z0-9_$]*|\$\d+|\S/g;

/**
 * The low-cardinality summary of a statement (db.query.summary): its operations and the tables they
 * name, in the order they appear, as written.
 */
export function summarizeSql(text: string): string {
  const tokens = text.match(TOKEN) ?? [];
  const parts: string[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    const word = (tokens[index] as string).toLowerCase();
    // FOR UPDATE and FOR NO KEY UPDATE lock rows: a clause of the SELECT, no operation of its own.
    if (word === 'update' && /^(for|key)$/i.test(tokens[index - 1] ?? '')) continue;
    // Nested operations with no table between them (the list page's subqueries) say nothing more
    // than the first: one, so that the span's name stays readable.
    if (OPERATIONS.has(word) && parts.at(-1) !== word.toUpperCase()) parts.push(word.toUpperCase());
    if (!BEFORE_TARGET.has(word)) continue;
    let target = identifier(tokens[index + 1]);
    let next = index + 2;
    // A schema-qualified name: schema.table.
    while (target !== undefined && tokens[next] === '.' && identifier(tokens[next + 1]) !== undefined) {
      target = `${target}.${identifier(tokens[next + 1])}`;
      next += 2;
    }
    // After FROM or JOIN a name followed by ( is a function (unnest); after INTO, a column list.
    if (target !== undefined && (word === 'into' || tokens[next] !== '(')) parts.push(target);
  }
  // A statement of no such operation (CREATE INDEX, SET, SHOW) is summarised by its first word.
  const summary = parts.length > 0 ? parts.join(' ') : (tokens[0]?.toUpperCase() ?? '');
  if (summary.length <= MAX_SUMMARY) return summary;
  return summary.slice(0, summary.lastIndexOf(' ', MAX_SUMMARY));
}

function identifier(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  if (token.startsWith('"')) return token.slice(1, -1).replaceAll('""', '"');
  const word = token.toLowerCase();
  if (/^[A-Za-z_]/.test(token) && !OPERATIONS.has(word) && !NOT_TARGETS.has(word)) return token;
  return undefined;
}

interface TableNodeLike {
  readonly kind: 'TableNode';
  readonly table: {
    readonly schema?: { readonly name: string };
    readonly identifier: { readonly name: string };
  };
}

function tableName(node: OperationNode | undefined): string | undefined {
  if (node?.kind !== 'TableNode') return undefined;
  const { schema, identifier } = (node as TableNodeLike).table;
  return schema === undefined ? identifier.name : `${schema.name}.${identifier.name}`;
}

const OPERATION_OF_NODE: Readonly<Record<string, string>> = {
  SelectQueryNode: 'SELECT',
  InsertQueryNode: 'INSERT',
  UpdateQueryNode: 'UPDATE',
  DeleteQueryNode: 'DELETE',
};

/**
 * db.operation.name and db.collection.name as the application built the statement (kysely's tree),
 * since the conventions forbid reading them from PostgreSQL's text: a statement of one operation
 * gets its name, and its table when it reads or writes exactly one; a WITH of several gets neither.
 */
function operationOf(query: OperationNode): Attributes {
  const operation = OPERATION_OF_NODE[query.kind];
  const node = query as OperationNode & {
    readonly with?: unknown;
    readonly into?: OperationNode;
    readonly table?: OperationNode;
    readonly from?: { readonly froms: readonly OperationNode[] };
    readonly joins?: readonly unknown[];
    readonly setOperations?: readonly unknown[];
  };
  if (operation === undefined || node.with !== undefined) return {};
  const froms = node.from?.froms ?? [];
  const single = node.joins === undefined && node.setOperations === undefined && froms.length <= 1;
  const collection = single
    ? query.kind === 'InsertQueryNode'
      ? tableName(node.into)
      : query.kind === 'UpdateQueryNode'
        ? froms.length === 0
          ? tableName(node.table)
          : undefined
        : tableName(froms[0])
    : undefined;
  return {
    [ATTR_DB_OPERATION_NAME]: operation,
    ...(collection === undefined ? {} : { [ATTR_DB_COLLECTION_NAME]: collection }),
  };
}

/** What a span says of a statement: its parameterised text (never the values), summary, operation, table. */
export function describeStatement(query: CompiledQuery): Attributes {
  return {
    [ATTR_DB_QUERY_TEXT]: query.sql,
    [ATTR_DB_QUERY_SUMMARY]: summarizeSql(query.sql),
    ...operationOf(query.query),
  };
}
