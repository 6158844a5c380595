import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const REPORTS = fileURLToPath(new URL('../../reports/drills/', import.meta.url));

/**
 * Records what a drill measured: one `DRILL <name> {...}` line in the test output and
 * apps/api/reports/drills/<name>.json, from which RELIABILITY.md's figures are copied.
 */
export function reportDrill(name: string, figures: Record<string, unknown>): void {
  const json = JSON.stringify(figures, (_key, value) => (typeof value === 'bigint' ? String(value) : value));
  mkdirSync(REPORTS, { recursive: true });
  writeFileSync(`${REPORTS}${name}.json`, `${JSON.stringify(JSON.parse(json), null, 2)}\n`);
  process.stdout.write(`DRILL ${name} ${json}\n`);
}
