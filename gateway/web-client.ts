/**
 * Serves the built web client (see scripts/web-build.ts): `/` is the page, never cached because a
 * login link carries a token; `/assets/*` are content-hashed files, cached for a year and sent
 * precompressed (brotli or gzip) when the browser accepts it. Public: the bundle holds no secret,
 * and the app signs in against the API like any other client.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Router } from '@koa/router';
import send from 'koa-send';
import type { GatewayState } from './state.js';

/** Same-origin everything, no inline script or style: the app's code is only its hashed bundle. */
export const WEB_CLIENT_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>troupe</title></head>
<body><h1>troupe</h1><p>The web client is not built. Run <code>npm run build</code> (or <code>npm start</code>, which builds it when needed), then reload.</p>
<p>The HTTP, SSE and MCP APIs work without it.</p></body></html>`;

const ONE_YEAR_MS = 365 * 24 * 3600 * 1000;

/** `buildDir`: the directory of one web build (index.html + assets/), or undefined when none exists. */
export function createWebClientRouter(buildDir: string | undefined): Router<GatewayState> {
  const router = new Router<GatewayState>();
  const page = buildDir === undefined ? NOT_BUILT_PAGE : readFileSync(join(buildDir, 'index.html'), 'utf8');

  router.get('/', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    // The URL may carry a one-time login token: never cached, never sent on as a referrer.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Content-Security-Policy', WEB_CLIENT_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = page;
  });

  if (buildDir !== undefined) {
    const root = join(buildDir, 'assets');
    router.get('/assets/:file', async (ctx) => {
      const file = ctx.params.file;
      // Only the flat, hashed file names the build writes; no paths, no hidden files.
      if (!/^[A-Za-z0-9_-]+\.(js|css|map|txt|LEGAL\.txt)$/.test(file)) return;
      ctx.set('Vary', 'Accept-Encoding');
      ctx.set('X-Content-Type-Options', 'nosniff');
      await send(ctx, file, { root, gzip: true, brotli: true, immutable: true, maxage: ONE_YEAR_MS }).catch((error: { status?: number }) => {
        if (error.status !== 404) throw error;
      });
    });
  }
  return router;
}
