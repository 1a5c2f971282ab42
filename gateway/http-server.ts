import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';

export interface HttpServerOptions {
  host: string;
  /** 0 = any free port. */
  port: number;
  /** How long close() lets open requests finish before cutting their connections. */
  closeGraceMs?: number;
  /** Longest a client may take to send a request's headers (Node's default: 60 s); a slowloris client is cut off after it. */
  headersTimeoutMs?: number;
  /** Longest a client may take to send a whole request, body included (Node's default: 300 s). Responses (SSE) are not bounded by it. */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open (Node's default: 5 s). */
  keepAliveTimeoutMs?: number;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** Room for an upload over a slow link. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 120_000;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Node checks the two request timeouts only this often (its default, 30 s, would let a trickle last 40 s instead of 10). */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

export interface RunningHttpServer {
  server: Server;
  /** Base URL a local client can use, e.g. http://127.0.0.1:8080. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startHttpServer(
  app: Pick<Koa, 'callback'>,
  {
    host,
    port,
    closeGraceMs = 5_000,
    headersTimeoutMs = DEFAULT_HEADERS_TIMEOUT_MS,
    requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs = DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
  }: HttpServerOptions,
): Promise<RunningHttpServer> {
  const server = createServer(
    {
      headersTimeout: headersTimeoutMs,
      requestTimeout: Math.max(requestTimeoutMs, headersTimeoutMs),
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_INTERVAL_MS, headersTimeoutMs),
    },
    app.callback(),
  );
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
