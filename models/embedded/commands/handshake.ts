/** Handshake and server-information commands. */
import { ObjectId } from 'bson';
import { type CommandHandler } from '../context.js';
import { MAX_BSON_OBJECT_SIZE, MAX_MESSAGE_SIZE_BYTES, MAX_WRITE_BATCH_SIZE } from '../wire.js';

/** The MongoDB release whose wire protocol and behaviour this server follows. */
export const COMPATIBLE_VERSION = '7.0.0';
const MAX_WIRE_VERSION = 21;
const ELECTION_ID = new ObjectId('7fffffff0000000000000001');

export const hello: CommandHandler = (ctx) => {
  const me = `${ctx.state.host}:${ctx.state.port}`;
  // No topologyVersion: drivers then poll instead of using streaming (awaitable) hello.
  return {
    helloOk: true,
    ismaster: true,
    isWritablePrimary: true,
    secondary: false,
    setName: ctx.state.setName,
    setVersion: 1,
    hosts: [me],
    primary: me,
    me,
    electionId: ELECTION_ID,
    lastWrite: { opTime: { ts: ctx.state.clock.now(), t: 1 }, lastWriteDate: new Date() },
    maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
    maxMessageSizeBytes: MAX_MESSAGE_SIZE_BYTES,
    maxWriteBatchSize: MAX_WRITE_BATCH_SIZE,
    localTime: new Date(),
    logicalSessionTimeoutMinutes: 30,
    connectionId: ctx.connectionId,
    minWireVersion: 0,
    maxWireVersion: MAX_WIRE_VERSION,
    readOnly: false,
    ok: 1,
  };
};

export const ping: CommandHandler = () => ({ ok: 1 });

export const buildInfo: CommandHandler = () => ({
  version: COMPATIBLE_VERSION,
  gitVersion: 'troupe-embedded',
  versionArray: COMPATIBLE_VERSION.split('.').map(Number).concat(0),
  bits: 64,
  debug: false,
  maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
  storageEngines: ['troupe-embedded'],
  modules: [],
  ok: 1,
});

export const whatsmyuri: CommandHandler = () => ({ you: '127.0.0.1:0', ok: 1 });
export const getParameter: CommandHandler = (ctx) => {
  const reply: Record<string, unknown> = { ok: 1 };
  if ('featureCompatibilityVersion' in ctx.body || ctx.body.getParameter === '*') reply.featureCompatibilityVersion = { version: '7.0' };
  if ('transactionLifetimeLimitSeconds' in ctx.body || ctx.body.getParameter === '*') {
    reply.transactionLifetimeLimitSeconds = ctx.state.transactionLifetimeLimitMs / 1000;
  }
  return reply;
};
export const hostInfo: CommandHandler = () => ({ system: { hostname: 'localhost' }, os: { type: process.platform }, extra: {}, ok: 1 });
export const connectionStatus: CommandHandler = () => ({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] }, ok: 1 });
export const serverStatus: CommandHandler = (ctx) => ({
  host: `${ctx.state.host}:${ctx.state.port}`,
  version: COMPATIBLE_VERSION,
  process: 'troupe-embedded-mongo',
  pid: process.pid,
  uptime: (Date.now() - ctx.state.startedAt.getTime()) / 1000,
  localTime: new Date(),
  ...ctx.state.metrics.serverStatus(),
  ok: 1,
});
