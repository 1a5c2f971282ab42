import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

export interface HttpServerOptions {
  host: string;
  /** 0 = any free port. */
  port: number;
  /** How long close() lets open requests finish before cutting their connections. */
  closeGraceMs?: number;
}

export interface RunningHttpServer {
  server: Server;
  /** Base URL a local client can use, e.g. http://127.0.0.1:8080. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startHttpServer(
  app: Pick<Koa, 'callback'>,
  { host, port, closeGraceMs = 5_000 }: HttpServerOptions,
): Promise<RunningHttpServer> {
  const server = createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    server,
    url: `http://${urlHost(host)}:${address.port}`,
    port: address.port,
    close: () => closeServer(server, closeGraceMs),
  };
}

function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
    // Long-lived responses (streams) would hold close() open forever.
    setTimeout(() => server.closeAllConnections(), graceMs).unref();
  });
}

/** The address a local client should dial for a listen host; wildcard hosts are reachable on loopback. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
