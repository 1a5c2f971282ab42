/** The TCP side: frames messages off each connection, runs them in order, writes replies back. */
import net from 'node:net';
import { runCommand } from './commands/index.js';
import { type ClientConnection, type ServerState } from './context.js';
import { encodeMsg, encodeReply, MAX_MESSAGE_SIZE_BYTES, parseMessage, WireError } from './wire.js';
import { type Doc } from './values.js';

let nextConnectionId = 1;

export function serveConnection(state: ServerState, socket: net.Socket) {
  const connectionId = nextConnectionId++;
  socket.setNoDelay(true);
  // Requests on one connection are answered in order; a connection never has two commands running.
  let queue: Promise<void> = Promise.resolve();
  const closing = new AbortController();
  let endedByServer = false;
  const connection: ClientConnection = {
    id: connectionId,
    closed: closing.signal,
    close() {
      endedByServer = true;
      socket.destroy();
    },
  };
  socket.once('close', () => closing.abort());

  const handle = async (message: Buffer) => {
    // Once the server ended the connection (failCommand's closeConnection), what was queued is dropped.
    if (endedByServer) return;
    let request;
    try {
      request = parseMessage(message);
    } catch (e) {
      state.logger.warn({ err: e, connectionId }, 'embedded mongo: malformed message, closing connection');
      socket.destroy();
      return;
    }
    if (!request) {
      state.logger.warn({ opCode: message.readInt32LE(12), connectionId }, 'embedded mongo: unsupported opcode, closing connection');
      socket.destroy();
      return;
    }
    if (request.kind === 'query') {
      const db = request.collection.split('.')[0];
      const reply = await runCommand(state, db, request.query, connection);
      if (!socket.destroyed) socket.write(encodeReply(request.requestId, [reply]));
      return;
    }
    const db = typeof request.body.$db === 'string' ? request.body.$db : 'admin';
    const body: Doc = request.body;
    const reply = await runCommand(state, db, body, connection);
    if (!request.moreToCome && !socket.destroyed) socket.write(encodeMsg(request.requestId, reply));
  };

  // Chunks of a message are kept apart until it is complete, then joined once (joining at every
  // chunk would copy a 48 MB insert batch hundreds of times).
  let chunks: Buffer[] = [];
  let total = 0;
  socket.on('data', (chunk) => {
    chunks.push(chunk);
    total += chunk.length;
    while (total >= 4) {
      if (chunks[0].length < 4) chunks = [Buffer.concat(chunks, total)];
      const length = chunks[0].readInt32LE(0);
      if (length < 16 || length > MAX_MESSAGE_SIZE_BYTES) {
        state.logger.warn({ length, connectionId }, 'embedded mongo: bad message length, closing connection');
        socket.destroy(new WireError('bad message length'));
        return;
      }
      if (total < length) break;
      const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, total);
      const message = all.subarray(0, length);
      const rest = all.subarray(length);
      chunks = rest.length ? [rest] : [];
      total = rest.length;
      queue = queue.then(() => handle(message)).catch((err) => {
        state.logger.error({ err, connectionId }, 'embedded mongo: connection handler failed');
        socket.destroy();
      });
    }
  });
  socket.on('error', () => socket.destroy());
}
