/**
 * What `troupe start` tells the person who ran it: a web UI URL with a single-use login token for the
 * `local` user (created, with its API key printed once, on the first start of an empty database), and
 * the MCP URL. Other keys come from `troupe users create NAME` / `troupe users key NAME`.
 */
import type { UserDirectory } from '../gateway/users.js';
import type { Logger } from '../logging/logger.js';

export interface LocalLoginOptions {
  users: Pick<UserDirectory, 'ensureLocalUser' | 'createLoginToken'>;
  /** The gateway's base URL, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  logger: Logger;
  /**
   * In production no `local` user is created: a key in the logs of a deployment would be a leaked key.
   * The operator creates users with the CLI instead.
   */
  createLocalUser: boolean;
}

export interface LocalLogin {
  loginUrl?: string;
  mcpUrl: string;
  /** Only when the local user was created just now. */
  apiKey?: string;
}

export async function announceLocalLogin({ users, baseUrl, logger, createLocalUser }: LocalLoginOptions): Promise<LocalLogin> {
  const mcpUrl = `${baseUrl}/mcp`;
  const local = createLocalUser ? await users.ensureLocalUser() : undefined;
  let loginUrl: string | undefined;
  if (local) {
    if (local.key !== undefined) {
      logger.info(
        { user: local.user.name, apiKey: local.key },
        `created user ${local.user.name}; its API key, shown only now: ${local.key}`,
      );
    }
    const { token, expiresAt } = await users.createLoginToken(local.user.id);
    loginUrl = `${baseUrl}/?login=${token}`;
    logger.info(
      { loginUrl, expiresAt },
      `open the web UI: ${loginUrl} (a single-use login link for user ${local.user.name}, valid until ${expiresAt.toISOString()})`,
    );
  } else {
    logger.info('no local user to log in as: create a user and API key with `troupe users create NAME`');
  }
  logger.info(
    { mcpUrl },
    `MCP endpoint: ${mcpUrl} (streamable HTTP; send "Authorization: Bearer <API key>"; ` +
      'new keys: `troupe users create NAME` or `troupe users key NAME`)',
  );
  return { loginUrl, mcpUrl, apiKey: local?.key };
}
