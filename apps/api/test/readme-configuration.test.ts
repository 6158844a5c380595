import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../src/config.ts';

const README = readFileSync(join(import.meta.dirname, '..', '..', '..', 'README.md'), 'utf8');

/** The rows of the README's table of settings: the variable and its default cell, as written. */
function readmeRows(): { variable: string; defaultCell: string }[] {
  const section = README.split(/^## /m).find((part) => part.startsWith('Configuration\n')) ?? '';
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

/** A default as the README writes it: `64kb`, or "unset" for none. */
function asWritten(fallback: unknown): string {
  return fallback === undefined ? 'unset' : `\`${String(fallback)}\``;
}

describe("the README's table of settings", () => {
  const declared = Object.values(SETTINGS).map(({ variable, schema }) => ({
    variable,
    defaultCell: asWritten(v.getDefault(schema)),
  }));

  it('when the README lists the settings, then it lists every setting of the schema once, and no other', () => {
    const listed = readmeRows().map(({ variable }) => variable);
    expect(listed.length).toBeGreaterThan(0);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual(declared.map(({ variable }) => variable).sort());
  });

  it.each(declared)(
    'when the README gives the default of $variable, then it is the schema default, $defaultCell',
    ({ variable, defaultCell }) => {
      expect(readmeRows().find((row) => row.variable === variable)?.defaultCell).toBe(defaultCell);
    },
  );
});
