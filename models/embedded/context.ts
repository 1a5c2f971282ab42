/** What every command handler gets: the server's state, the target database, the session and its transaction. */
import { Timestamp } from 'bson';
import { type CollectionAccess } from './access.js';
import { type CursorRegistry } from './cursors.js';
import { type FailPointRegistry } from './fail-points.js';
import { type ServerMetrics } from './metrics.js';
import { type Session, type SessionRegistry, type Transaction } from './sessions.js';
import { type Engine } from './store/engine.js';
import { type Doc } from './values.js';

export interface EmbeddedLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/** A cluster time that only moves forward (operationTime / $clusterTime in replies). */
export class LogicalClock {
  private seconds = 0;
  private increment = 0;
  tick(): Timestamp {
    const now = Math.floor(Date.now() / 1000);
    if (now > this.seconds) {
      this.seconds = now;
      this.increment = 1;
    } else this.increment += 1;
    return this.now();
  }
  now(): Timestamp {
    return new Timestamp({ t: this.seconds, i: this.increment });
  }
}

export interface ServerState {
  engine: Engine;
  sessions: SessionRegistry;
  cursors: CursorRegistry;
  clock: LogicalClock;
  host: string;
  port: number;
  setName: string;
  startedAt: Date;
  transactionLifetimeLimitMs: number;
  /** mongod's `--setParameter enableTestCommands=1`: configureFailPoint and waitForFailPoint exist. */
  enableTestCommands: boolean;
  failPoints: FailPointRegistry;
  /** serverStatus's opcounters and query metrics. */
  metrics: ServerMetrics;
  logger: EmbeddedLogger;
}

/** One client connection, as commands see it. */
export interface ClientConnection {
  readonly id: number;
  /** `client.application.name` from the connection's first hello / isMaster, if the client sent one. */
  appName?: string;
  /** Aborted when the connection closes. */
  readonly closed: AbortSignal;
  /** Ends the connection without a reply (failCommand's `closeConnection`). */
  close(): void;
}

export interface CommandContext {
  state: ServerState;
  db: string;
  body: Doc;
  connectionId: number;
  connection: ClientConnection;
  session?: Session;
  txn?: Transaction;
  access(collection: string): CollectionAccess;
}

export type CommandHandler = (ctx: CommandContext) => Doc | Promise<Doc>;
