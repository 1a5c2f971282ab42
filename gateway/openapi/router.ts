/**
 * GET /openapi.json (the OpenAPI 3.1 document of this gateway) and GET /docs (Swagger UI reading it),
 * both public. The document is built on its first request and kept: building it takes a few hundred
 * milliseconds that a gateway's start-up should not wait for (test/integration/openapi.test.ts builds
 * it from every kind, so a contract it cannot describe fails there).
 */
import { Router } from '@koa/router';
import send from 'koa-send';
import type { AnyKind } from '../../actors/runtime/contract.js';
import type { GatewayState } from '../state.js';
import { buildOpenApiDocument } from './document.js';
import { DOCS_FILE_ROUTE, DOCS_PATH, OPENAPI_PATH } from './docs-paths.js';
import { DOCS_CSP, DOCS_PAGE, INIT_SCRIPT, INIT_SCRIPT_FILE, SWAGGER_UI_DIR, SWAGGER_UI_FILES } from './swagger-ui.js';

const ONE_DAY_MS = 24 * 3600 * 1000;

export function createApiDocsRouter(kinds: AnyKind[]): Router<GatewayState> {
  let serialized: string | undefined;
  const router = new Router<GatewayState>();

  router.get(OPENAPI_PATH, (ctx) => {
    ctx.type = 'application/json';
    ctx.set('Cache-Control', 'no-cache');
    serialized ??= JSON.stringify(buildOpenApiDocument(kinds));
    ctx.body = serialized;
  });

  router.get(DOCS_PATH, (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.body = DOCS_PAGE;
  });

  router.get(DOCS_FILE_ROUTE, async (ctx) => {
    const file = ctx.params.file;
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (file === INIT_SCRIPT_FILE) {
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.set('Cache-Control', 'no-cache');
      ctx.body = INIT_SCRIPT;
      return;
    }
    // Only the files the page loads; the package holds more (source maps, its own index.html).
    if (!SWAGGER_UI_FILES.has(file)) return;
    await send(ctx, file, { root: SWAGGER_UI_DIR, maxage: ONE_DAY_MS });
  });

  return router;
}
