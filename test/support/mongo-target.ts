/**
 * Which MongoDB the MongoDB conformance tests talk to.
 *
 * - `MONGODB_URI` unset (the default): an embedded troupe server (models/embedded) started on a free
 *   loopback port for each test file, stopped after it.
 * - `MONGODB_URI` set: that server (a real MongoDB replica set). Tests that must control the server
 *   process (TTL monitor period, restarts on a dbpath, kill -9, transaction lifetime) skip themselves.
 *
 * Every test file gets its own database, named uniquely per run, dropped in its `after` hook.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import {
  MongoClient,
  MongoServerError,
  type Collection,
  type Db,
  type Document,
  type MongoClientOptions,
} from 'mongodb';

export interface MongoTarget {
  /** Connection string without a database name (append none; pass `dbName` to the driver/mongoose). */
  uri: string;
  /** First seed host and port (the embedded server's own address). */
  host: string;
  port: number;
  /** true when the server is troupe's embedded server started by this fixture. */
  embedded: boolean;
  /** Stops the embedded server; a no-op for an external MONGODB_URI server. */
  stop(): Promise<void>;
}

/** Options that only an embedded server honours (a real server ignores them: tests skip instead). */
export interface EmbeddedOverrides {
  /** TTL sweeper period (server default 60000). */
  ttlMonitorIntervalMs?: number;
  /** Transaction lifetime limit (server default 60). */
  transactionLifetimeLimitSeconds?: number;
}

/** The external server's URI, if the suite runs against a real MongoDB. */
export function externalMongoUri(): string | undefined {
  const uri = process.env.MONGODB_URI?.trim();
  return uri ? uri : undefined;
}

export function isExternalMongo(): boolean {
  return externalMongoUri() !== undefined;
}

/**
 * Skips the current test, or from a `before` hook the whole suite, when the suite runs against a
 * real MongoDB; mocha's `skip()` takes no reason, so the reason is appended to the skipped titles.
 */
export function skipUnlessEmbedded(ctx: Mocha.Context, reason: string): void {
  if (!isExternalMongo()) return;
  const note = ` [skipped with MONGODB_URI: ${reason}]`;
  const runnable = ctx.test;
  if (runnable && (runnable as { type?: string }).type === 'hook') {
    for (const test of runnable.parent?.tests ?? []) test.title += note;
  } else if (runnable) {
    runnable.title += note;
  }
  ctx.skip();
}

export async function mongoTarget(overrides: EmbeddedOverrides = {}): Promise<MongoTarget> {
  const external = externalMongoUri();
  if (external) {
    const seed = firstSeed(external);
    return { uri: external, host: seed.host, port: seed.port, embedded: false, stop: async () => {} };
  }
  const { startEmbeddedMongo } = await import('../../models/embedded/index.js');
  const server = await startEmbeddedMongo({ port: 0, host: '127.0.0.1', ...overrides });
  let stopped = false;
  return {
    uri: server.uri,
    host: server.host,
    port: server.port,
    embedded: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await server.stop();
    },
  };
}

/** A database name unique to this run and this test file (MongoDB allows at most 63 characters). */
export function uniqueDbName(area: string): string {
  const suffix = `${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  return `troupe_t_${area.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 24)}_${suffix}`;
}

/** The first host of a `mongodb://` connection string (`mongodb+srv://` has no fixed port). */
export function firstSeed(uri: string): { host: string; port: number } {
  const match = /^mongodb(\+srv)?:\/\/(?:[^@/]*@)?([^/?]+)/.exec(uri);
  if (!match) throw new Error(`cannot parse hosts from MONGODB_URI ${JSON.stringify(uri)}`);
  const first = match[2]!.split(',')[0]!;
  if (match[1]) return { host: first, port: 27017 };
  const ipv6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(first);
  if (ipv6) return { host: ipv6[1]!, port: Number(ipv6[2] ?? 27017) };
  const [host, port] = first.split(':');
  return { host: host!, port: Number(port ?? 27017) };
}

/**
 * The same server as `target`, reached with `directConnection=true` to its first seed
 * (credentials and other options of the original URI are kept; `replicaSet` is dropped).
 * Undefined for `mongodb+srv://` URIs, where a direct connection cannot be expressed.
 */
export function directConnectionUri(target: MongoTarget): string | undefined {
  const match = /^mongodb:\/\/([^@/]*@)?([^/?]+)(\/[^?]*)?(\?.*)?$/.exec(target.uri);
  if (!match) return undefined;
  const credentials = match[1] ?? '';
  const host = target.host.includes(':') ? `[${target.host}]` : target.host;
  const params = new URLSearchParams((match[4] ?? '').replace(/^\?/, ''));
  params.delete('replicaSet');
  params.set('directConnection', 'true');
  return `mongodb://${credentials}${host}:${target.port}/?${params.toString()}`;
}

/** `uri` with one more query option (`key=value`). */
export function withUriOption(uri: string, key: string, value: string): string {
  if (uri.includes('?')) return `${uri}&${key}=${encodeURIComponent(value)}`;
  return `${uri.replace(/\/$/, '')}/?${key}=${encodeURIComponent(value)}`;
}

/** The replica set name the target URI asks for, if any. */
export function replicaSetOf(uri: string): string | undefined {
  const query = uri.split('?')[1];
  return query ? (new URLSearchParams(query).get('replicaSet') ?? undefined) : undefined;
}

/** true when the URI carries credentials (raw wire tests then cannot authenticate and skip). */
export function uriHasCredentials(uri: string): boolean {
  return /^mongodb(\+srv)?:\/\/[^/?]*@/.test(uri);
}

export interface MongoContext {
  readonly target: MongoTarget;
  readonly client: MongoClient;
  readonly db: Db;
  readonly dbName: string;
  /** A collection of this file's database whose name no other test of this run used. */
  fresh<T extends Document = Document>(base: string): Collection<T>;
  /**
   * Opens another client on the target (or `uri`); it is closed by the `after` hook.
   * `beforeConnect` can attach event listeners before the first connection is made.
   */
  connect(uri?: string, options?: MongoClientOptions, beforeConnect?: (client: MongoClient) => void): Promise<MongoClient>;
}

/**
 * Registers `before`/`after` hooks in the calling `describe` that start (or pick) the target,
 * connect one client and choose this file's database; `after` drops the database and closes
 * every client and the server. Returns accessors valid inside tests.
 */
export function useMongo(area: string, overrides: EmbeddedOverrides = {}): MongoContext {
  let target: MongoTarget | undefined;
  let client: MongoClient | undefined;
  const dbName = uniqueDbName(area);
  const extraClients: MongoClient[] = [];
  let counter = 0;

  const ready = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`useMongo(${area}): ${name} used before the before() hook ran`);
    return value;
  };

  before(async function () {
    this.timeout(30_000);
    target = await mongoTarget(overrides);
    client = new MongoClient(target.uri, { serverSelectionTimeoutMS: 10_000 });
    await client.connect();
  });

  after(async function () {
    this.timeout(30_000);
    const errors: unknown[] = [];
    const attempt = async (step: () => Promise<unknown>): Promise<void> => {
      try {
        await step();
      } catch (error) {
        errors.push(error);
      }
    };
    if (client) await attempt(() => client!.db(dbName).dropDatabase());
    for (const extra of extraClients.splice(0)) await attempt(() => extra.close());
    if (client) await attempt(() => client!.close());
    if (target) await attempt(() => target!.stop());
    client = undefined;
    target = undefined;
    if (errors.length > 0) throw errors[0];
  });

  return {
    get target() {
      return ready(target, 'target');
    },
    get client() {
      return ready(client, 'client');
    },
    get db() {
      return ready(client, 'client').db(dbName);
    },
    dbName,
    fresh<T extends Document = Document>(base: string): Collection<T> {
      counter += 1;
      return ready(client, 'client').db(dbName).collection<T>(`${base}_${counter}`);
    },
    async connect(uri?: string, options: MongoClientOptions = {}, beforeConnect?: (client: MongoClient) => void): Promise<MongoClient> {
      const extra = new MongoClient(uri ?? ready(target, 'target').uri, { serverSelectionTimeoutMS: 10_000, ...options });
      extraClients.push(extra);
      beforeConnect?.(extra);
      await extra.connect();
      return extra;
    },
  };
}

/**
 * Awaits `operation`, expects it to fail with a MongoServerError (optionally with `code`), and
 * returns the error for further assertions.
 */
export async function expectServerError(
  operation: Promise<unknown>,
  code?: number,
  what = 'the operation',
): Promise<MongoServerError> {
  let outcome: unknown;
  try {
    outcome = await operation;
  } catch (error) {
    expect(error, `${what}: expected a MongoServerError, got ${String(error)}`).to.be.instanceOf(MongoServerError);
    const serverError = error as MongoServerError;
    if (code !== undefined) {
      expect(serverError.code, `${what}: error code (message: ${serverError.message})`).to.equal(code);
    }
    return serverError;
  }
  expect.fail(
    `${what} should have failed${code === undefined ? '' : ` with code ${code}`}, but succeeded with ${JSON.stringify(outcome)}`,
  );
}

/** Awaits `operation` and expects it to fail with any error; returns it. */
export async function expectFailure(operation: Promise<unknown>, what = 'the operation'): Promise<Error> {
  let outcome: unknown;
  try {
    outcome = await operation;
  } catch (error) {
    expect(error, `${what}: expected an Error, got ${String(error)}`).to.be.instanceOf(Error);
    return error as Error;
  }
  expect.fail(`${what} should have failed, but succeeded with ${JSON.stringify(outcome)}`);
}
