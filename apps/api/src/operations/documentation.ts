// This description of the interface, as JSON and as a page for people.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as v from 'valibot';
import { defineOperation } from './operation.ts';

// Swagger UI comes from the package's own node_modules: the page makes no request to another origin.
const SWAGGER_UI_DIR = dirname(fileURLToPath(import.meta.resolve('swagger-ui-dist/package.json')));
const PAGE_DIR = join(import.meta.dirname, 'docs-page');

/** The files under /docs/assets/: name to where it is and what it is. */
const ASSETS: Readonly<Record<string, { readonly path: string; readonly type: string }>> = {
  'swagger-ui.css': { path: join(SWAGGER_UI_DIR, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': {
    path: join(SWAGGER_UI_DIR, 'swagger-ui-bundle.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'favicon-32x32.png': { path: join(SWAGGER_UI_DIR, 'favicon-32x32.png'), type: 'image/png' },
  'docs-page.js': { path: join(PAGE_DIR, 'docs-page.js'), type: 'text/javascript; charset=utf-8' },
};

// Scripts and styles from this origin only, no inline script; requests ("Try it out") to this origin
// only. Swagger UI sets style attributes and shows a few icons as data: images.
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const fileCache = new Map<string, Buffer>();
function cachedFile(path: string): Buffer {
  let bytes = fileCache.get(path);
  if (bytes === undefined) {
    bytes = readFileSync(path);
    fileCache.set(path, bytes);
  }
  return bytes;
}

export const openApiDocumentOperation = defineOperation({
  method: 'get',
  path: '/openapi.json',
  operationId: 'openApiDocument',
  tags: ['documentation'],
  scope: 'none',
  summary: 'This document.',
  responses: {
    200: {
      description: 'The OpenAPI 3.1 description of the service; int64 bounds are exact JSON integers.',
      // No valibot schema describes an OpenAPI document.
      body: { schema: { type: 'object' } },
    },
  },
  // Built once, its int64 bounds written as exact JSON integers.
  handler:
    ({ openApiDocument }) =>
    (ctx) => {
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = openApiDocument;
    },
});

export const apiReferenceOperation = defineOperation({
  method: 'get',
  path: '/docs',
  operationId: 'apiReference',
  tags: ['documentation'],
  scope: 'none',
  summary: 'The API reference page for people, with a "try it out" for each operation.',
  description:
    'The page loads its scripts, styles and icon from `/docs/assets/`, served by the service itself ' +
    '(no CDN); they are part of the page, not operations of the interface.',
  responses: { 200: { description: 'An HTML page.', body: { mediaType: 'text/html', schema: v.string() } } },
  // Swagger UI over /openapi.json.
  handler: () => (ctx) => {
    ctx.set('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = cachedFile(join(PAGE_DIR, 'index.html'));
  },
});

export const docsAssetOperation = defineOperation({
  method: 'get',
  path: '/docs/assets/{file}',
  operationId: 'docsAsset',
  tags: ['documentation'],
  scope: 'none',
  hidden: true,
  summary: "The reference page's scripts, styles and icon; any other name is a 404.",
  params: { file: { description: 'The name of the file.', schema: v.string() } },
  responses: {},
  handler:
    () =>
    (ctx, { params }) => {
      const asset = Object.hasOwn(ASSETS, params.file) ? ASSETS[params.file] : undefined;
      if (asset === undefined) return; // no body: error-responses.ts answers the JSON 404
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.type = asset.type;
      ctx.body = cachedFile(asset.path);
    },
});
