/**
 * POST /auth/login {token}: the web client trades the single-use login token from the URL `troupe start`
 * or `troupe login-link` prints (`/?login=TOKEN`) for an API key. Unauthenticated by nature; the token
 * is the credential.
 */
import { Router } from '@koa/router';
import { z } from 'zod';
import { ApiError } from './error-response.js';
import type { GatewayState } from './state.js';
import type { UserDirectory } from './users.js';

export const LoginBody = z.object({ token: z.string().min(1).max(200) }).strict();

export function createLoginRouter(users: Pick<UserDirectory, 'exchangeLoginToken'>): Router<GatewayState> {
  const router = new Router<GatewayState>();

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
