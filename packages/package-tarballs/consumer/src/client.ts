// The typed client, over a stand-in for the service (a fetch function): exact int64 ids both ways.
import {
  type CreatePlantErrorStatus,
  createPlantStoreClient,
  type NewPlant,
  parseExactJson,
} from '@plant-store/client';

// @ts-expect-error an id is a bigint: a number would lose integers beyond 2^53
const wrong: NewPlant = { id: 7, name: 'Fern' };
void wrong;

const requests: { authorization: string | null; body: string }[] = [];
const answers = [
  new Response('{"name":"Monstera","tag":"aroid"}', {
    status: 200,
    headers: { etag: '"YurG9qb1Iqq1vedvKlQ8RBzcupht5Cm9xExs3fSWmf0"' },
  }),
  new Response('{"error":409,"message":"a plant with id 9223372036854775807 already exists"}', {
    status: 409,
    headers: { 'content-type': 'application/json' },
  }),
];
const plants = createPlantStoreClient({
  baseUrl: 'http://plant-store.invalid',
  token: 'consumer-token',
  fetch: async (request) => {
    const sent = request as Request;
    requests.push({ authorization: sent.headers.get('authorization'), body: await sent.text() });
    const answer = answers.shift();
    if (answer === undefined) throw new Error('no more answers');
    return answer;
  },
});

const created = await plants.createPlant({ id: 9223372036854775807n, name: 'Monstera', tag: 'aroid' });
const refused = await plants.createPlant({ id: 9223372036854775807n, name: 'Fern' });
const refusedStatus: CreatePlantErrorStatus | 200 = refused.status;
const parsed = parseExactJson('[9223372036854775807, 1]') as [bigint, number];

console.log(
  JSON.stringify({
    requests,
    created,
    refused: { status: refusedStatus, ok: refused.ok },
    parsed: [typeof parsed[0], parsed[0].toString(), parsed[1]],
  }),
);
