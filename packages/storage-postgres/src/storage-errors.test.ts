import { StorageUnavailableError } from '@plant-store/domain';
import { describe, expect, it } from 'vitest';
import { isUnavailableError, toStorageError } from './storage-errors.ts';

/** An error as pg reports a server's answer: a message and the SQLSTATE in `code`. */
function serverError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('storage errors through a failover', () => {
  it.each([
    ['25006', 'cannot execute INSERT in a read-only transaction'], // a standby, or a demoted leader
    ['57P01', 'terminating connection due to administrator command'], // the leader shut down
    ['57P03', 'the database system is starting up'], // a node coming back
  ])(
    'when the server answers SQLSTATE %s, then it is an outage, with the driver error as cause',
    (code, message) => {
      const error = serverError(code, message);
      expect(isUnavailableError(error)).toBe(true);
      const mapped = toStorageError(error);
      expect(mapped).toBeInstanceOf(StorageUnavailableError);
      expect((mapped as StorageUnavailableError).cause).toBe(error);
    },
  );

  it.each(['ECONNREFUSED', 'ECONNRESET'])(
    'when a connection to a lost leader fails with %s, then it is an outage',
    (code) => {
      const error = Object.assign(new Error(`connect ${code} 172.18.0.5:5432`), { code });
      expect(toStorageError(error)).toBeInstanceOf(StorageUnavailableError);
      // A host with two addresses refuses once per address.
      expect(isUnavailableError(new AggregateError([error, error]))).toBe(true);
    },
  );

  // As Node reports a failed lookup of the host (dnsException): the errno glibc left, named.
  it.each([
    ['EBUSY', -16], // out of descriptors, as seen with `localhost` in CI's testcontainers leg
    ['EMFILE', -24],
    ['ENOTFOUND', -3008], // out of descriptors too, where /etc/hosts cannot be opened
    ['EAI_AGAIN', -3001],
  ])('when the host name fails to resolve with %s, then it is an outage', (code, errno) => {
    const error = Object.assign(new Error(`getaddrinfo ${code} localhost`), {
      code,
      errno,
      syscall: 'getaddrinfo',
      hostname: 'localhost',
    });
    expect(toStorageError(error)).toBeInstanceOf(StorageUnavailableError);
  });

  it('when the load balancer closes the session (on-marked-down shutdown-sessions), then it is an outage', () => {
    expect(isUnavailableError(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it.each([
    ['23505', 'duplicate key value violates unique constraint'],
    ['25P02', 'current transaction is aborted'],
    ['22P02', 'invalid input syntax for type bigint'],
  ])('when the server answers SQLSTATE %s, then it passes unchanged', (code, message) => {
    const error = serverError(code, message);
    expect(isUnavailableError(error)).toBe(false);
    expect(toStorageError(error)).toBe(error);
  });
});
