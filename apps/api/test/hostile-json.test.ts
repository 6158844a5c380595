// Bodies whose shape, not their size, used to cost: a long number, deep nesting, thousands of
// members. Each is valid JSON within the body limit, so each gets the answer its plant deserves.
import { openMemoryPlantStorage } from '@plant-store/storage-memory';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectErrorResponse } from './support/expect-error.ts';
import { killLeftoverRuns, listeningUrl, runMain } from './support/run-main.ts';
import { startTestServer, type TestServer, TOKEN } from './support/test-server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(openMemoryPlantStorage());
});
afterAll(async () => {
  await server?.stop();
});

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('valid JSON of hostile shapes on POST /plants', () => {
  it('when an unknown field is nested 2,300 deep, then the plant is created (it used to be "unreadable JSON")', async () => {
    const response = await server.createPlant(`{"id":2300,"name":"deep","extra":${nestedArrays(2_300)}}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ name: 'deep' });
    expect(await server.storage.plants.findById(2300n)).toEqual({ id: 2300n, name: 'deep' });
  });

  it('when an unknown field is nested as deep as the body limit allows, then the plant is created', async () => {
    const prefix = '{"id":32000,"name":"deeper","extra":';
    const depth = Math.floor((65_536 - prefix.length - 1) / 2);
    const body = `${prefix}${nestedArrays(depth)}}`;
    expect(body.length).toBeGreaterThan(65_530);
    expect((await server.createPlant(body)).status).toBe(200);
    expect(await server.storage.plants.findById(32000n)).toEqual({ id: 32000n, name: 'deeper' });
  });

  it('when the name is nested deep, then it answers 400 naming the field, and stores nothing', async () => {
    const response = await server.createPlant(`{"id":2301,"name":${nestedArrays(10_000)}}`);
    expect(await expectErrorResponse(response, 400)).toBe(
      'invalid plant: name must be a string, not an array',
    );
    expect(await server.storage.plants.findById(2301n)).toBeUndefined();
  });

  it('when nesting deep is not closed, then it answers 400 saying where the JSON breaks', async () => {
    const response = await server.createPlant(`{"id":2302,"name":"x","extra":${'['.repeat(20_000)}}`);
    expect(await expectErrorResponse(response, 400)).toBe(
      'the request body is not valid JSON: unexpected character "}" at position 20030',
    );
  });

  it('when an unknown field holds a 60 KB number, then the plant is created', async () => {
    const response = await server.createPlant(
      `{"id":2303,"name":"long number","extra":1${'0'.repeat(60_000)}1}`,
    );
    expect(response.status).toBe(200);
    expect(await server.storage.plants.findById(2303n)).toEqual({ id: 2303n, name: 'long number' });
  });

  it('when the id is a number of 60 KB, then it answers 400: out of range, or a fraction', async () => {
    const huge = await server.createPlant(`{"id":1${'0'.repeat(60_000)}1,"name":"x"}`);
    expect(await expectErrorResponse(huge, 400)).toBe(
      'invalid plant: id must be an integer between -9223372036854775808 and 9223372036854775807',
    );
    const fraction = await server.createPlant(`{"id":1.${'0'.repeat(60_000)}1,"name":"x"}`);
    expect(await expectErrorResponse(fraction, 400)).toBe(
      'invalid plant: id must be an integer, without a fractional part',
    );
  });

  it('when the body holds thousands of members, then the last of a name given twice counts, as in JSON.parse', async () => {
    const members = Array.from({ length: 5_000 }, (_, index) => `"k${index}":${index}`).join(',');
    const response = await server.createPlant(`{"id":1,"name":"first",${members},"id":2304,"name":"last"}`);
    expect(response.status).toBe(200);
    expect(await server.storage.plants.findById(2304n)).toEqual({ id: 2304n, name: 'last' });
    expect(await server.storage.plants.findById(1n)).toBeUndefined();
  });
});

// In a process of its own: before the fixes these requests held the event loop for an hour or
// more, and in the test runner's process they would have frozen its timeouts too.
describe('a hostile request does not hold up the service', () => {
  afterEach(killLeftoverRuns);

  it.each([
    [
      'a number of a million digits in an unknown field',
      'application/json',
      `{"id":1,"name":"x","extra":1${'0'.repeat(1_000_000)}1}`,
      200,
    ],
    ['a 16 KB Content-Type of empty parameters', `application/json${'; '.repeat(8_000)}x`, '{}', 415],
  ])(
    'when a client sends %s, then it is answered, and so is /healthz: the event loop is not held',
    async (_what, contentType, body, status) => {
      const run = runMain({ API_TOKENS: TOKEN, DATABASE_URL: 'memory:', PORT: '0', BODY_LIMIT: '2mb' });
      const url = await listeningUrl(run);
      // The signals bound a held event loop (an hour and more), not the speed of an answer.
      const response = await fetch(`${url}/plants`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': contentType },
        body,
        signal: AbortSignal.timeout(20_000),
      });
      expect(response.status).toBe(status);
      await response.arrayBuffer();
      const health = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(20_000) });
      expect(health.status).toBe(200);
    },
  );
});
