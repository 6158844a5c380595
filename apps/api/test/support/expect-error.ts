import { expect } from 'vitest';

/** Checks that a fetch Response is the JSON Error of `status`, and returns its message. */
export async function expectErrorResponse(response: Response, status: number): Promise<string> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const body = (await response.json()) as { error: unknown; message: unknown };
  expect(body).toEqual({ error: status, message: expect.any(String) });
  expect(Object.keys(body)).toEqual(['error', 'message']);
  return body.message as string;
}
