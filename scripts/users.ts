/**
 * `troupe users create|list|revoke|key|grant|revoke-role`: manage users and API keys directly in MongoDB (MONGODB_URI, or
 * the embedded server on EMBEDDED_MONGO_DBPATH when nothing else holds it). Results go to stdout,
 * problems to stderr as one `troupe: ...` line with exit code 1.
 */
import { ApiError } from '../gateway/error-response.js';
import { Role, UserDirectory, type UserSummary } from '../gateway/users.js';
import type { Config } from './config.js';
import { connectOrReport, quieterLogLevel } from './command-mongo.js';
import { createLogger } from '../logging/logger.js';

export type Output = Pick<NodeJS.WriteStream, 'write'>;

export interface UsersCommandIo {
  stdout: Output;
  stderr: Output;
}

const defaultIo: UsersCommandIo = { stdout: process.stdout, stderr: process.stderr };

export async function runUsersCreate(name: string, config: Config, { admin = false }: { admin?: boolean } = {}, io = defaultIo): Promise<number> {
  return withUserDirectory(config, io, `troupe users create ${name}${admin ? ' --admin' : ''}`, async (users) => {
    const { user, roles, key } = await users.createUser(name, 'cli', admin ? ['admin'] : []);
    io.stdout.write(
      `Created user ${user.name} (id ${user.id})${roles.length > 0 ? ` with role ${roles.join(', ')}` : ''}.\n` +
        'API key (shown only now; store it safely):\n\n' +
        `  ${key}\n\n` +
        'Send it as "Authorization: Bearer <key>" or "X-API-Key: <key>".\n',
    );
    return 0;
  });
}

export async function runUsersKey(name: string, config: Config, io = defaultIo): Promise<number> {
  return withUserDirectory(config, io, `troupe users key ${name}`, async (users) => {
    const { user, key } = await users.issueKey(name, 'cli');
    io.stdout.write(`New API key for ${user.name} (shown only now; store it safely):\n\n  ${key}\n\n`);
    return 0;
  });
}

export async function runUsersList(config: Config, { json = false }: { json?: boolean } = {}, io = defaultIo): Promise<number> {
  return withUserDirectory(config, io, `troupe users list${json ? ' --json' : ''}`, async (users) => {
    const list = await users.listUsers();
    io.stdout.write(json ? `${JSON.stringify(list, null, 2)}\n` : usersTable(list));
    return 0;
  });
}

export async function runUsersRevoke(target: string, config: Config, io = defaultIo): Promise<number> {
  return withUserDirectory(config, io, `troupe users revoke ${target}`, async (users) => {
    const outcome = await users.revoke(target);
    if (outcome.revoked === 'user') {
      io.stdout.write(
        outcome.alreadyRevoked
          ? `User ${outcome.name} was already revoked${outcome.keys > 0 ? `; revoked ${outcome.keys} remaining API key(s)` : ''}.\n`
          : `Revoked user ${outcome.name} and ${outcome.keys} API key(s).\n`,
      );
    } else {
      io.stdout.write(
        outcome.alreadyRevoked
          ? `API key ${outcome.prefix} (user ${outcome.user}) was already revoked.\n`
          : `Revoked API key ${outcome.prefix} of user ${outcome.user}.\n`,
      );
    }
    return 0;
  });
}

/** Checked before connecting, so a typo answers at once. */
function knownRole(role: string, io: UsersCommandIo): boolean {
  const parsed = Role.safeParse(role);
  if (!parsed.success) io.stderr.write(`troupe: ${parsed.error.issues[0]!.message}\n`);
  return parsed.success;
}

export async function runUsersGrant(name: string, role: string, config: Config, io = defaultIo): Promise<number> {
  if (!knownRole(role, io)) return 1;
  return withUserDirectory(config, io, `troupe users grant ${name} ${role}`, async (users) => {
    const change = await users.grantRole(name, role);
    io.stdout.write(change.changed ? `Granted ${change.role} to ${change.name}.\n` : `${change.name} already has ${change.role}.\n`);
    return 0;
  });
}

export async function runUsersRevokeRole(name: string, role: string, config: Config, io = defaultIo): Promise<number> {
  if (!knownRole(role, io)) return 1;
  return withUserDirectory(config, io, `troupe users revoke-role ${name} ${role}`, async (users) => {
    const change = await users.revokeRole(name, role);
    io.stdout.write(change.changed ? `Revoked ${change.role} from ${change.name}.\n` : `${change.name} does not have ${change.role}.\n`);
    return 0;
  });
}

/** NAME / ROLES / CREATED / KEYS / REVOKED, one user per line; revoked keys are marked. */
export function usersTable(users: UserSummary[]): string {
  if (users.length === 0) return 'No users yet. Create one with: troupe users create NAME\n';
  const rows = users.map((user) => [
    user.name,
    user.roles.join(',') || '-',
    user.createdAt.toISOString(),
    user.keys.map((key) => (key.revokedAt ? `${key.prefix} (revoked)` : key.prefix)).join(', ') || '-',
    user.revokedAt ? user.revokedAt.toISOString() : '-',
  ]);
  const header = ['NAME', 'ROLES', 'CREATED', 'KEYS', 'REVOKED'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/** `command` is the command line the user typed, shown again with the MONGODB_URI to use if the data directory is held. */
async function withUserDirectory(config: Config, io: UsersCommandIo, command: string, run: (users: UserDirectory) => Promise<number>): Promise<number> {
  // stdout carries the command's answer; connection logs go to stderr, and only when asked for.
  const logger = createLogger({ ...config.log, level: quieterLogLevel(config.log.level), fd: 2 });
  const mongo = await connectOrReport(config, logger, command, io.stderr);
  if (!mongo) return 1;
  try {
    return await run(await UserDirectory.open(mongo.connection));
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    io.stderr.write(`troupe: ${error.message}\n`);
    return 1;
  } finally {
    await mongo.stop();
  }
}
