/**
 * POST /auth/login {token}: the web UI trades the single-use login token from the URL `troupe start`
 * prints (`/?login=TOKEN`) for an API key. Unauthenticated by nature; the token is the credential.
 */
import { readFileSync } from 'node:fs';
import { Router } from '@koa/router';
import { z } from 'zod';
import { ApiError } from './error-response.js';
import type { GatewayState } from './state.js';
import type { UserDirectory } from './users.js';

const LoginBody = z.object({ token: z.string().min(1).max(200) }).strict();

/** The page the login link opens: it trades the token for a key and shows how to use it. */
const LOGIN_PAGE = readFileSync(new URL('./web/index.html', import.meta.url), 'utf8');

export function createLoginRouter(users: Pick<UserDirectory, 'exchangeLoginToken'>): Router<GatewayState> {
  const router = new Router<GatewayState>();

  router.get('/', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    // The URL carries a one-time token: never cached, never sent on as a referrer.
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Content-Security-Policy', "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'");
    ctx.body = LOGIN_PAGE;
  });

  router.post('/auth/login', async (ctx) => {
    const body = LoginBody.safeParse(ctx.request.body);
    if (!body.success) {
      throw new ApiError(400, 'bad_request', 'expected a JSON body {"token": "..."}', { issues: body.error.issues });
    }
    const login = await users.exchangeLoginToken(body.data.token);
    if (!login) throw new ApiError(401, 'unauthorized', 'the login token is invalid, expired or already used');
    ctx.state.logger.info({ userId: login.user.id }, 'login token exchanged for an API key');
    // The answer carries a secret: keep it out of every cache.
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { apiKey: login.apiKey, user: login.user };
  });

  return router;
}
