// What `pnpm start` and the image run: the Node.js version is checked before anything else is loaded
// (static imports are all loaded before a module runs, so the check is this module's, and main.ts is
// imported only once it passed); on an older Node the start is refused in one line, not a stack.
import { unsupportedNode } from './supported-node.ts';

const unsupported = unsupportedNode(process.versions.node);
if (unsupported !== undefined) {
  process.stderr.write(`plant-store cannot start: ${unsupported}\n`);
  process.exit(1);
}
await import('./main.ts');
