/**
 * Reading REDIS_URL, apart from opening connections (redis-client.ts), so that configuration and key
 * naming can tell a server from a cluster without loading ioredis.
 */
export interface RedisAddress {
  host: string;
  port: number;
}

/** What a REDIS_URL names: one server, or the seed nodes of a cluster with their shared credentials. */
export type RedisTarget =
  | { kind: 'server'; url: string }
  | { kind: 'cluster'; nodes: RedisAddress[]; username?: string; password?: string; tls: boolean; db: number };

const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)(\/\d*)?\/?$/;
const DEFAULT_PORT = 6379;

/** The URL scheme of a cluster: `redis+cluster://h1:p1,h2:p2` (or `rediss+cluster://` over TLS). */
export const isClusterUrl = (url: string): boolean => /^rediss?\+cluster:\/\//.test(url);

/** The URL naming a cluster from REDIS_CLUSTER_NODES (`h1:p1,h2:p2`). */
export const clusterUrl = (nodes: string): string => `redis+cluster://${nodes}`;

/** Parses REDIS_URL; throws a message that says what is wrong with a malformed cluster URL. */
export function redisTarget(url: string): RedisTarget {
  if (!isClusterUrl(url)) return { kind: 'server', url };
  const match = CLUSTER_SCHEME.exec(url);
  if (!match) throw new Error('a cluster URL is redis+cluster://[user:password@]host:port,host:port,… (no path beyond an optional /0)');
  const [, scheme, credentials, hosts, path] = match;
  const nodes = hosts!.split(',').map((hostPort) => {
    const at = hostPort.lastIndexOf(':');
    const host = at > 0 ? hostPort.slice(0, at) : hostPort;
    const port = at > 0 ? Number(hostPort.slice(at + 1)) : DEFAULT_PORT;
    if (!host || !Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`'${hostPort}' is not host:port`);
    return { host, port };
  });
  const db = path && path.length > 1 ? Number(path.slice(1)) : 0;
  if (db !== 0) throw new Error('a Redis Cluster has only database 0');
  let username: string | undefined;
  let password: string | undefined;
  if (credentials) {
    const colon = credentials.indexOf(':');
    username = decodeURIComponent(colon >= 0 ? credentials.slice(0, colon) : credentials) || undefined;
    password = colon >= 0 ? decodeURIComponent(credentials.slice(colon + 1)) : undefined;
  }
  return { kind: 'cluster', nodes, username, password, tls: scheme === 'rediss', db };
}
