// The failures the app's own middleware raise (credential, readiness) are the same HttpError as those of
// @plant-store/http-hardening's middleware: error-responses.ts turns them all into answers alike.
export { HttpError } from '@plant-store/http-hardening';

/** The header of every 503 the service answers: one pace, so that clients learn one. */
export const RETRY_LATER: Readonly<Record<string, string>> = { 'Retry-After': '5' };
