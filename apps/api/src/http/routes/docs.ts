import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RouterMiddleware } from '@koa/router';
import type { Middleware } from 'koa';
import { openApiDocumentText } from '../../openapi/openapi-document.ts';
import type { AppState } from '../app-state.ts';

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

/** GET /openapi.json: the document, built once, its int64 bounds written as exact JSON integers. */
export function openApiDocumentHandler(): Middleware<AppState> {
  const text = openApiDocumentText();
  return (ctx) => {
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = text;
  };
}

/** GET /docs: the API reference page (Swagger UI over /openapi.json). */
export function docsPageHandler(): Middleware<AppState> {
  return (ctx) => {
    ctx.set('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = cachedFile(join(PAGE_DIR, 'index.html'));
  };
}

/** GET /docs/assets/:file: the page's scripts, styles and icon; anything else is a 404. */
export function docsAssetHandler(): RouterMiddleware<AppState> {
  return (ctx) => {
    const file = ctx.params.file ?? '';
    const asset = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (asset === undefined) return; // no body: error-responses.ts answers the JSON 404
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.type = asset.type;
    ctx.body = cachedFile(asset.path);
  };
}
