import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectionCap, openFilesLimit, RESERVED_DESCRIPTORS } from './connection-limit.ts';

const folder = mkdtempSync(join(tmpdir(), 'http-hardening-limits-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A /proc/self/limits of the given soft limit of open files. */
function limitsFile(soft: string): string {
  const file = join(folder, `limits-${soft}`);
  writeFileSync(
    file,
    'Limit                     Soft Limit           Hard Limit           Units\n' +
      'Max processes             63348                63348                processes\n' +
      `Max open files            ${soft.padEnd(20)} 1048576              files\n`,
  );
  return file;
}

describe('openFilesLimit', () => {
  it('when the process reads its limits, then it is the soft limit of open files', () => {
    expect(openFilesLimit(limitsFile('4096'))).toBe(4096);
  });

  it('when the soft limit is unlimited, then there is none', () => {
    expect(openFilesLimit(limitsFile('unlimited'))).toBeUndefined();
  });

  it('when the limits cannot be read (no /proc), then the usual soft limit, 1024, is assumed', () => {
    expect(openFilesLimit(join(folder, 'missing'))).toBe(1024);
  });
});

describe('connectionCap', () => {
  it(`when it is auto, then it is the limit less ${RESERVED_DESCRIPTORS} descriptors, or less those given`, () => {
    expect(connectionCap('auto', 1024)).toBe(1024 - RESERVED_DESCRIPTORS);
    expect(connectionCap('auto', 1024, 24)).toBe(1000);
  });

  it('when auto leaves nothing, then the cap is one connection', () => {
    expect(connectionCap('auto', 100)).toBe(1);
  });

  it('when auto has no limit to go by, or the cap is Infinity, then there is no cap', () => {
    expect(connectionCap('auto', undefined)).toBeUndefined();
    expect(connectionCap(Number.POSITIVE_INFINITY, 1024)).toBeUndefined();
  });

  it('when a number is given, then it is the cap, whatever the limit', () => {
    expect(connectionCap(5000, 1024)).toBe(5000);
  });
});
