// The conditional requests on one plant (RFC 9110 section 13): If-None-Match on reading, If-Match on
// changing and deleting, compared with the plant's ETag (plant-etag.ts). A field that cannot be read
// matches nothing: never a 400, never a 5xx.
import type { PlantPrecondition } from '@plant-store/domain';
import { matchesStrongly, matchesWeakly, parseEntityTagList } from '../http/entity-tags.ts';
import { failure, sharedHeader } from './answers.ts';
import { PRECONDITION_FAILED_EXAMPLES } from './error-examples.ts';
import type { Answer, OperationContext, RequestHeader } from './operation.ts';
import { plantETag } from './plant-etag.ts';

export const IF_MATCH: RequestHeader = {
  name: 'If-Match',
  description:
    'Change only the plant as you read it: its `ETag`, or several, comma-separated (strong comparison: a weak `W/"…"` never matches), or `*` for any plant that exists. Otherwise, or when no plant is stored under the id, 412 and nothing changes. The comparison and the write are one atomic step: of two writers sending the same `If-Match`, one succeeds and the other gets 412. A value that is not an entity-tag list (RFC 9110) matches nothing.',
  schema: { type: 'string' },
};

export const IF_NONE_MATCH: RequestHeader = {
  name: 'If-None-Match',
  description:
    'The ETags you hold, comma-separated (weak comparison: `W/"…"` matches too), or `*`: when one is the plant\'s, 304 with its `ETag` and no body. A value that is not an entity-tag list (RFC 9110) matches nothing.',
  schema: { type: 'string' },
};

export const PRECONDITION_FAILED: Answer = failure(
  '`If-Match` was sent, and the plant stored under the id is not one it names (another content, a weak or unreadable tag), or there is none. Nothing was changed: read the plant again, and decide.',
  PRECONDITION_FAILED_EXAMPLES,
);

export const NOT_MODIFIED: Answer = {
  description: "`If-None-Match` names the plant's ETag (or is `*`): the plant is unchanged. No body.",
  headers: { ETag: sharedHeader('ETag') },
};

/**
 * The request's If-Match as the domain's precondition, which it tests on the plant it finds in the same
 * atomic step as its write: undefined without one.
 */
export function ifMatchOf(ctx: OperationContext): PlantPrecondition | undefined {
  const field = ctx.req.headers['if-match'];
  if (field === undefined) return undefined;
  const list = parseEntityTagList(field);
  if (list === '*') return 'any';
  return (current) => matchesStrongly(list, plantETag(current));
}

/** Whether the request's If-None-Match names `etag` (or is `*`): the answer is then 304. */
export function isNotModified(ctx: OperationContext, etag: string): boolean {
  const field = ctx.req.headers['if-none-match'];
  return field !== undefined && matchesWeakly(parseEntityTagList(field), etag);
}

/** 304: no body, the ETag of the plant it stands for. */
export function answerNotModified(ctx: OperationContext, etag: string): void {
  ctx.status = 304;
  ctx.res.setHeader('ETag', etag);
}
