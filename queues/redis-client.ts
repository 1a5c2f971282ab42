/**
 * Opening Redis connections: one Redis server (`redis://`, `rediss://`) or a Redis Cluster
 * (`redis+cluster://h1:p1,h2:p2`, `rediss+cluster://…`). Every connection troupe makes goes through
 * `createRedisClient`, so the rest of the code holds a `RedisClient` and does not care which it is;
 * where the difference matters (blocking reads across many streams, key scans) it asks `isCluster`.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';

export type RedisClient = Redis | Cluster;

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

/**
 * A connection to REDIS_URL with these options. For a cluster, connection options apply to every
 * node's connection; `enableOfflineQueue` and `lazyConnect` to the cluster client itself.
 */
export function createRedisClient(url: string, options: RedisOptions = {}): RedisClient {
  const target = redisTarget(url);
  if (target.kind === 'server') return new Redis(url, options);
  const { enableOfflineQueue, lazyConnect, enableAutoPipelining, retryStrategy, ...nodeOptions } = options;
  return new Cluster(target.nodes, {
    enableOfflineQueue,
    lazyConnect,
    enableAutoPipelining,
    clusterRetryStrategy: retryStrategy ? (times) => retryStrategy(times) ?? null : undefined,
    // Masters only: a replica may not have a reply's newest entry yet.
    scaleReads: 'master',
    redisOptions: {
      ...nodeOptions,
      username: target.username,
      password: target.password,
      tls: target.tls ? {} : undefined,
    },
  });
}

/** True for a cluster client. */
export const isCluster = (client: RedisClient): client is Cluster => client instanceof Cluster;

/**
 * The servers holding keys: a cluster's masters, or the one server. What iterates keys by pattern
 * (SCAN) runs once per server, as a cluster has no keyspace-wide SCAN.
 */
export const keyServers = (client: RedisClient): Redis[] => (isCluster(client) ? client.nodes('master') : [client]);

/** Every key matching `pattern`, a SCAN page at a time, across the servers holding keys. */
export async function* scanKeys(client: RedisClient, pattern: string, count = 1_000): AsyncGenerator<string[]> {
  for (const server of keyServers(client)) {
    let cursor = '0';
    do {
      const [next, found] = await server.scan(cursor, 'MATCH', pattern, 'COUNT', count);
      cursor = next;
      if (found.length > 0) yield found;
    } while (cursor !== '0');
  }
}

/**
 * Deletes every key matching `pattern` (a test run's or bench run's prefix), a SCAN page at a time so a
 * shared Redis stays responsive. On a cluster each key goes alone: one DEL may not span slots.
 */
export async function deleteMatchingKeys(client: RedisClient, pattern: string): Promise<number> {
  let deleted = 0;
  for await (const keys of scanKeys(client, pattern)) {
    deleted += isCluster(client) ? (await Promise.all(keys.map((key) => client.unlink(key)))).reduce((a, b) => a + b, 0) : await client.unlink(...keys);
  }
  return deleted;
}

/**
 * A connection to one node of the cluster REDIS_URL names (`node`: `host:port`, as the cluster's slot
 * map gives it), with the cluster's credentials: for what must stay on one node, as a blocking read
 * woken by CLIENT UNBLOCK.
 */
export function nodeClient(url: string, node: string, options: RedisOptions = {}): Redis {
  const target = redisTarget(url);
  if (target.kind !== 'cluster') return new Redis(url, options);
  const at = node.lastIndexOf(':');
  return new Redis({ ...options, host: node.slice(0, at), port: Number(node.slice(at + 1)), username: target.username, password: target.password, tls: target.tls ? {} : undefined });
}
