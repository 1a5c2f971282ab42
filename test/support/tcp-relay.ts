/**
 * A TCP relay on loopback that a test controls: every connection to it is piped to the target, and
 * the test can cut them all at once (a real network drop mid-stream) or close the relay and open it
 * again on the same port (an outage of whatever is behind it).
 */
import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

export interface TcpRelay {
  port: number;
  /** Destroys every connection through the relay (both sides); says how many sockets it closed. */
  dropConnections(): number;
  /** Stops listening and drops every connection. */
  close(): Promise<void>;
  /** Listens again on the same port after close(). */
  reopen(): Promise<void>;
}

/** Relays `port` (0: a free one) on 127.0.0.1 to `targetHost:targetPort`. */
export async function startTcpRelay(targetHost: string, targetPort: number, port = 0): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let listeningPort = port;

  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    server.listen(listeningPort, '127.0.0.1');
    await once(server, 'listening');
    listeningPort = (server.address() as { port: number }).port;
  };
  const dropConnections = () => {
    const count = sockets.size;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    return count;
  };

  await listen();
  return {
    port: listeningPort,
    dropConnections,
    async close() {
      if (!server) return;
      const closing = server;
      server = undefined;
      const closed = once(closing, 'close');
      closing.close();
      dropConnections();
      await closed;
    },
    reopen: listen,
  };
}
