// The README's API table and docs/api.md's table of operations list each operation's statuses exactly as
// the published document has them: a status added to an operation, or dropped, fails here until both say so.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../src/openapi/openapi-document.ts';

const root = join(import.meta.dirname, '..', '..', '..');

/** `GET /plants/{id}` → its statuses, as the document lists them. */
function documentedStatuses(): Map<string, string[]> {
  const operations = new Map<string, string[]>();
  for (const [path, item] of Object.entries(buildOpenApiDocument().paths))
    for (const [method, operation] of Object.entries(item)) {
      const responses = (operation as { responses?: Record<string, unknown> }).responses;
      if (responses !== undefined)
        operations.set(`${method.toUpperCase()} ${path}`, Object.keys(responses).sort());
    }
  return operations;
}

interface Row {
  readonly line: number;
  readonly operations: string[];
  readonly statuses: string[];
}

/**
 * The rows of a page's tables whose first cell names operations (`` `GET /plants?limit=` ``, the query left
 * out), with the statuses the rest of the row names as `` `404` ``.
 */
function operationRows(markdown: string): Row[] {
  return markdown.split('\n').flatMap((text, index) => {
    const [first, ...rest] = text.split('|').slice(1, -1);
    if (first === undefined || !text.startsWith('|')) return [];
    const operations = [...first.matchAll(/`(GET|HEAD|POST|PUT|PATCH|DELETE) (\/[^`?\s]*)[^`]*`/g)].map(
      ([, method, path]) => `${method} ${path}`,
    );
    if (operations.length === 0) return [];
    const statuses = [...new Set([...rest.join('|').matchAll(/`([1-5]\d\d)`/g)].map(([, status]) => status))];
    return [{ line: index + 1, operations, statuses: (statuses as string[]).sort() }];
  });
}

describe.each(['README.md', 'docs/api.md'])("%s's table of operations", (page) => {
  const rows = operationRows(readFileSync(join(root, page), 'utf8'));
  const documented = documentedStatuses();

  it('when it is read beside the published document, then every operation is in one row, with exactly its statuses', () => {
    const listed = rows.flatMap((row) => row.operations);
    expect(
      listed.filter((operation) => !documented.has(operation)),
      'rows naming no operation of the document',
    ).toEqual([]);
    expect([...listed].sort(), 'every operation once').toEqual([...documented.keys()].sort());
    for (const row of rows)
      for (const operation of row.operations)
        expect({ operation, line: row.line, statuses: row.statuses }).toEqual({
          operation,
          line: row.line,
          statuses: documented.get(operation),
        });
  });
});
