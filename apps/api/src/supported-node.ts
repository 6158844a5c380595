// The oldest Node.js the service starts on: the workspace's `engines`, the Node it is built and tested
// on (its packages ask less, >=22). A test holds the two equal.
export const NODE_FLOOR = '24.11.0';

/**
 * Why this runtime cannot run the service, or undefined when it can: older than NODE_FLOOR, or without
 * JSON.rawJSON, which exact int64 ids are written with.
 */
export function unsupportedNode(version: string, json: object = JSON): string | undefined {
  const [major = 0, minor = 0, patch = 0] = version.split('.').map(Number);
  const [floorMajor = 0, floorMinor = 0, floorPatch = 0] = NODE_FLOOR.split('.').map(Number);
  const older =
    major !== floorMajor
      ? major < floorMajor
      : minor !== floorMinor
        ? minor < floorMinor
        : patch < floorPatch;
  if (!older && typeof (json as { rawJSON?: unknown }).rawJSON === 'function') return undefined;
  return (
    `Node.js ${NODE_FLOOR} or later is needed, and this is Node.js ${version}: ` +
    "run it through pnpm (`pnpm start`), which runs the workspace's Node 24"
  );
}
