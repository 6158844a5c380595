// "koa + @koa/router minimal", the baseline of the service on memory: koa and @koa/router routing as
// the service does, the same token check and parse, and no storage, so that the ratio shows what the
// service adds on top of its framework.
import { createServer } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import {
  isJsonMediaType,
  listenLikeTheService,
  makeTokenCheck,
  parsePlant,
  plantResponse,
  readBody,
  tokensFromEnv,
} from './common.ts';

const isAuthorized = makeTokenCheck(tokensFromEnv(process.env));
const app = new Koa();
const router = new Router();

router.get('/healthz', (ctx) => {
  ctx.body = { status: 'ok' };
});

router.post('/plants', async (ctx) => {
  if (!isAuthorized(ctx.get('Authorization') || undefined)) ctx.throw(401, 'unauthorized');
  if (!isJsonMediaType(ctx.req.headers['content-type'])) ctx.throw(415, 'json only');
  const body = await readBody(ctx.req);
  if (body === undefined) return ctx.throw(413, 'too large');
  const plant = parsePlant(body);
  if (typeof plant === 'string') return ctx.throw(400, plant);
  ctx.body = plantResponse(plant);
});

app.use(router.routes()).use(router.allowedMethods());

const server = createServer(
  { keepAliveTimeout: 5_000, requestTimeout: 30_000, headersTimeout: 10_000 },
  app.callback(),
);
await listenLikeTheService(server);
