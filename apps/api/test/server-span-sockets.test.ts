import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const CHILD = fileURLToPath(new URL('./support/socket-shapes.mjs', import.meta.url));

describe('the server span and the connection it came on', () => {
  // Node caches a socket's peer address on it when first asked; asked only for sampled requests, their
  // sockets took a shape of their own, and Node's HTTP functions were deoptimized whenever one came.
  it('when one request is sampled and another not, then their sockets keep one shape', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      '--allow-natives-syntax',
      '--conditions=@plant-store/source',
      CHILD,
    ]);
    expect(JSON.parse(stdout)).toEqual({ recorded: 1, sockets: 2, sameShape: true });
  });
});
