// Imported first by main.ts, so that it runs before any other module: on an older Node the service
// would otherwise fail further on, with a stack far from the reason (JSON.rawJSON is Node 21's).

/** The oldest Node.js the service runs on: the workspace's `engines` (a test holds them equal). */
export const OLDEST_NODE = '24.11.0';

/** Whether Node.js `version` (as process.versions.node) is older than OLDEST_NODE. */
export function isOlderNode(version: string): boolean {
  const given = version.split('.').map(Number);
  const oldest = OLDEST_NODE.split('.').map(Number);
  for (let part = 0; part < oldest.length; part++) {
    const difference = (given[part] ?? 0) - (oldest[part] ?? 0);
    if (difference !== 0) return difference < 0;
  }
  return false;
}

if (isOlderNode(process.versions.node)) {
  process.stderr.write(
    `plant-store cannot start: it runs on Node.js ${OLDEST_NODE} or later, not ${process.versions.node}: ` +
      'start it with pnpm start, which runs the Node.js the workspace installs, or install Node.js 24\n',
  );
  process.exit(1);
}
