import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

/**
 * Why a small file was not read: the error's code (`ENOENT` when there is none), or what makes it
 * unfit: not a regular file (a device such as /dev/zero never ends, a FIFO waits for a writer), or
 * more than the bound.
 */
export type SmallFileRefusal =
  | { readonly why: string }
  | { readonly notRegular: true }
  | { readonly tooLarge: true };

/** The bytes of a regular file of at most `maxBytes`, read with that bound, or why it was not read. */
export function readSmallFile(path: string, maxBytes: number): { readonly bytes: Buffer } | SmallFileRefusal {
  let fd: number;
  try {
    // Non-blocking: a FIFO opens at once, to be refused, instead of waiting for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return { why: (error as NodeJS.ErrnoException).code ?? 'error' };
  }
  try {
    if (!fstatSync(fd).isFile()) return { notRegular: true };
    // One byte more than allowed, read until the end: a size that lies (a file under /proc says 0) still ends here.
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    let read: number;
    do {
      read = readSync(fd, buffer, length, buffer.length - length, null);
      length += read;
    } while (read > 0 && length < buffer.length);
    if (length > maxBytes) return { tooLarge: true };
    return { bytes: buffer.subarray(0, length) };
  } catch (error) {
    return { why: (error as NodeJS.ErrnoException).code ?? 'error' };
  } finally {
    closeSync(fd);
  }
}
