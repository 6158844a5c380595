import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/config.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
// The full table lives in docs/configuration.md; the README keeps the few most people need.
const CONFIGURATION = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The rows of the table in a document's `## <heading>` section: the variable and its default cell, as written. */
function tableRows(document: string, heading: string): { variable: string; defaultCell: string }[] {
  const section = document.split(/^## /m).find((part) => part.startsWith(`${heading}\n`)) ?? '';
  return section
    .split('\n')
    .filter((line) => line.startsWith('| `'))
    .map((line) => {
      const [variable = '', defaultCell = ''] = line
        .split('|')
        .slice(1, 3)
        .map((cell) => cell.trim());
      return { variable: variable.replaceAll('`', ''), defaultCell };
    });
}

/** A default as the documents write it: `64kb`, or "unset" for none. */
function asWritten(fallback: unknown): string {
  return fallback === undefined ? 'unset' : `\`${String(fallback)}\``;
}

const declared = Object.values(SETTINGS).map(({ variable, schema }) => ({
  variable,
  defaultCell: asWritten(v.getDefault(schema)),
}));

describe("docs/configuration.md's table of settings", () => {
  const rows = () => tableRows(CONFIGURATION, 'The settings');

  it('when it lists the settings, then it lists every setting of the schema once, and no other', () => {
    const listed = rows().map(({ variable }) => variable);
    expect(listed.length).toBeGreaterThan(0);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual(declared.map(({ variable }) => variable).sort());
  });

  it.each(declared)(
    'when it gives the default of $variable, then it is the schema default, $defaultCell',
    ({ variable, defaultCell }) => {
      expect(rows().find((row) => row.variable === variable)?.defaultCell).toBe(defaultCell);
    },
  );
});

describe("the README's short table of settings", () => {
  const rows = tableRows(README, 'The five settings most people need');

  it('when it lists the five settings, then each is a setting of the schema, once, with the schema default', () => {
    expect(rows.map(({ variable }) => variable)).toHaveLength(5);
    expect(new Set(rows.map(({ variable }) => variable)).size).toBe(5);
    expect(rows).toStrictEqual(
      rows.map(({ variable }) => declared.find((setting) => setting.variable === variable)),
    );
  });
});
