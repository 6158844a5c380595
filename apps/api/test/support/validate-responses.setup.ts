// Vitest setup of the api's tests: every answer that a test receives from a service on this machine,
// through fetch or the raw helpers of raw-http.ts, must be what the published OpenAPI document says
// (status documented for its path and method, content type, body schema, required headers).
// The tests' own assertions stay as they are; a test that received an undocumented answer fails here.
import { afterEach, expect } from 'vitest';
import { checkResponse, takeViolations } from './openapi-validator.ts';

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
const realFetch = globalThis.fetch;

globalThis.fetch = async (input, init) => {
  const response = await realFetch(input, init);
  const url = new URL(input instanceof Request ? input.url : input);
  const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
  if (LOCAL_HOSTS.has(url.hostname)) {
    const headers = Object.fromEntries(response.headers);
    const { status } = response;
    checkResponse(
      response
        .clone()
        .text()
        .then((body) => ({ method, path: url.pathname, status, headers, body })),
    );
  }
  return response;
};

afterEach(async () => {
  expect(await takeViolations(), 'answers that break the published OpenAPI document').toEqual([]);
});
