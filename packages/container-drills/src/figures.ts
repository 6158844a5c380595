/** Figures a drill measured: printed, and kept in reports/figures.json for the README and the CI log. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const file = join(import.meta.dirname, '..', 'reports', 'figures.json');

export function recordFigure(name: string, value: string | number): void {
  console.log(`figure: ${name} = ${value}`);
  mkdirSync(join(file, '..'), { recursive: true });
  let figures: Record<string, string | number> = {};
  try {
    figures = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // The first figure of the run.
  }
  figures[name] = value;
  writeFileSync(file, `${JSON.stringify(figures, null, 2)}\n`);
}
