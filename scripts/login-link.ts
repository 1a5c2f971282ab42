/**
 * `troupe login-link [NAME]`: a fresh single-use link that signs NAME (default `local`) into the web
 * client, valid 15 minutes — instead of restarting troupe for a new one.
 */
import { UserDirectory } from '../gateway/users.js';
import { connectOrReport, quieterLogLevel } from './command-mongo.js';
import type { Config } from './config.js';
import { createLogger } from '../logging/logger.js';

export interface LoginLinkIo {
  stdout: Pick<NodeJS.WriteStream, 'write'>;
  stderr: Pick<NodeJS.WriteStream, 'write'>;
}

export async function runLoginLink(config: Config, name = 'local', io: LoginLinkIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const logger = createLogger({ ...config.log, level: quieterLogLevel(config.log.level), fd: 2 });
  const mongo = await connectOrReport(config, logger, `troupe login-link ${name}`, io.stderr);
  if (!mongo) return 1;
  try {
    const users = await UserDirectory.open(mongo.connection);
    const user = await users.activeUserNamed(name);
    if (!user) {
      io.stderr.write(`troupe: no active user '${name}'. Create one with: troupe users create ${name}\n`);
      return 1;
    }
    const { token, expiresAt } = await users.createLoginToken(user.id);
    const base = config.agents.gatewayUrl.replace(/\/$/, '');
    io.stdout.write(`${base}/?login=${token}\n`);
    io.stderr.write(`Signs in ${name} once, until ${expiresAt.toISOString()} (set GATEWAY_URL if the gateway is elsewhere).\n`);
    return 0;
  } finally {
    await mongo.stop();
  }
}
