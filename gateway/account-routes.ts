/**
 * The signed-in user's own account, for the web client and any other client:
 *
 *   GET    /me                who you are
 *   GET    /me/keys           your API keys (prefix, label, dates; never a secret), the one in use marked
 *   POST   /me/keys           another key {label?}: 201, the key shown this once
 *   DELETE /me/keys/:prefix   revokes one of your keys (another user's: 404)
 *   GET    /me/usage          each kind's limits and where you stand against them now
 */
import Router from '@koa/router';
import type { Context } from 'koa';
import { z } from 'zod';
import type { AnyKind } from '../actors/runtime/contract.js';
import { ApiError } from './error-response.js';
import type { UserLimits } from './limits.js';
import type { GatewayState } from './state.js';
import { keyPrefixOf, type UserDirectory } from './users.js';

export interface AccountRoutesDeps {
  users: Pick<UserDirectory, 'keysOf' | 'createKeyFor' | 'revokeKeyOf' | 'createdAt' | 'activeAdmin'>;
  limits: Pick<UserLimits, 'usage'>;
  kinds: AnyKind[];
}

export const KeyLabel = z.object({ label: z.string().trim().min(1).max(60).default('web') }).strict();
export const Prefix = z.string().regex(/^trp_[0-9a-f]{12}$/, { error: 'a key prefix: trp_ and 12 hex digits' });

const userOf = (ctx: Context & { state: GatewayState }) => {
  const user = ctx.state.user;
  if (!user) throw new ApiError(401, 'unauthorized', 'an API key is required');
  return user;
};

/** The prefix of the key this request came with. */
function requestKeyPrefix(ctx: Context): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(ctx.get('authorization'))?.[1];
  const key = bearer ?? (ctx.get('x-api-key') || undefined);
  return key === undefined ? undefined : keyPrefixOf(key);
}

export function createAccountRouter(deps: AccountRoutesDeps): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/me', async (ctx) => {
    const user = userOf(ctx);
    const [createdAt, admin] = await Promise.all([deps.users.createdAt(user.id), deps.users.activeAdmin(user.id)]);
    ctx.body = { id: user.id, name: user.name, created_at: createdAt?.toISOString() ?? null, roles: admin ? ['admin'] : [] };
  });
  router.get('/me/keys', async (ctx) => {
    const user = userOf(ctx);
    const current = requestKeyPrefix(ctx);
    const keys = await deps.users.keysOf(user.id);
    ctx.body = {
      keys: keys.map((k) => ({
        prefix: k.prefix,
        label: k.label,
        created_at: k.createdAt.toISOString(),
        revoked_at: k.revokedAt?.toISOString() ?? null,
        expires_at: k.expiresAt?.toISOString() ?? null,
        current: k.prefix === current,
      })),
    };
  });
  router.post('/me/keys', async (ctx) => {
    const user = userOf(ctx);
    const body = KeyLabel.safeParse(ctx.request.body ?? {});
    if (!body.success) throw new ApiError(400, 'bad_request', `invalid body: ${body.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}`);
    const issued = await deps.users.createKeyFor(user.id, body.data.label);
    ctx.status = 201;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { key: issued.key, prefix: issued.prefix, label: body.data.label, note: 'shown only now: keep it somewhere safe' };
  });
  router.delete('/me/keys/:prefix', async (ctx) => {
    const user = userOf(ctx);
    const prefix = Prefix.safeParse(ctx.params.prefix);
    if (!prefix.success) throw new ApiError(400, 'bad_request', prefix.error.issues[0]!.message);
    const revoked = await deps.users.revokeKeyOf(user.id, prefix.data);
    ctx.body = { prefix: revoked.prefix, revoked: true, already_revoked: revoked.alreadyRevoked };
  });
  router.get('/me/usage', async (ctx) => {
    const user = userOf(ctx);
    ctx.body = { kinds: await Promise.all(deps.kinds.map((kind) => deps.limits.usage(user.id, kind))) };
  });
  return router;
}
