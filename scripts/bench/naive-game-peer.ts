/**
 * The naive peer of `bench:game`: an MCP server for the same games, written without troupe (see
 * naive-peer/game-server.ts), in one process on the same MongoDB. The bench drives it with the same MCP
 * SDK client, key, seeds and moves as troupe, in turns with it, so a run shows what the platform costs
 * per move beside what the same machine gives a plain server that day.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { dropCollection, endProcess } from './naive-peer.js';
import { GAMES_COLLECTION } from './naive-peer/contract.js';
import { benchScript, freePort } from './troupe-processes.js';

export interface NaiveGamePeer {
  /** An MCP SDK client connected to the peer with the bench user's key. */
  mcp: Client;
  pid: number;
  /** Ends the process and drops its games. */
  stop(): Promise<void>;
}

export async function startNaiveGamePeer(options: { mongoUri: string; dbName: string; key: string }): Promise<NaiveGamePeer> {
  const port = await freePort();
  const server = benchScript('scripts/bench/naive-peer/game-server.ts', [], { MONGODB_URI: options.mongoUri, MONGODB_DB: options.dbName, PORT: String(port), HOST: '127.0.0.1' });
  const mcp = new Client({ name: 'troupe-bench-game-peer', version: '1.0.0' });
  const stop = async () => {
    await mcp.close().catch(() => undefined);
    await endProcess(server.child);
    await dropCollection(options.mongoUri, options.dbName, GAMES_COLLECTION);
  };
  try {
    await server.waitFor('naive game peer listening');
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), { requestInit: { headers: { authorization: `Bearer ${options.key}` } } }));
    return { mcp, pid: server.child.pid!, stop };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
