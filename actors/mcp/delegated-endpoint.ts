/**
 * Where agents call MCP tools, and as whom. Agents call troupe's own `/mcp` as the user they act for,
 * so that user's limits and isolation apply to their tool calls too. A worker cannot reuse the user's
 * own key (only its hash is stored), so it mints a short-lived delegated key for the user, keeps it in
 * memory, and mints the next one before it expires; MongoDB sweeps expired keys. Another MCP server
 * (COACH_MCP_URL) is called with the configured header only: troupe keys never leave for it.
 */
import { Types, type Connection } from 'mongoose';
import { apiKeyRecords, createApiKey } from '../../models/api-key.js';
import type { McpEndpoint } from '../runtime/contract.js';

/** How long a delegated key works, and how long before that a fresh one is minted. */
export const DELEGATED_KEY_TTL_MS = 60 * 60 * 1000;
const RENEW_BEFORE_MS = 15 * 60 * 1000;
const KEYS_KEPT = 10_000;
export const DELEGATED_KEY_LABEL = 'delegated:mcp';

export type McpTarget =
  /** troupe's own gateway: `url()` is its base URL (known once it listens, or configured). */
  | { own: true; gatewayUrl: () => string | undefined }
  /** Another MCP server at `url`, called with `header` if given. */
  | { own: false; url: string; header?: { name: string; value: string } };

export function mcpEndpoint(mongo: Connection, target: McpTarget): McpEndpoint {
  if (!target.own) {
    const headers = target.header ? { [target.header.name]: target.header.value } : {};
    return { url: () => target.url, headersFor: async () => headers };
  }
  const records = apiKeyRecords(mongo);
  const keys = new Map<string, { key: Promise<string>; renewAt: number }>();
  return {
    url: () => {
      const base = target.gatewayUrl();
      return base === undefined ? undefined : `${base.replace(/\/+$/, '')}/mcp`;
    },
    async headersFor(userId) {
      const now = Date.now();
      let held = keys.get(userId);
      if (!held || held.renewAt <= now) {
        const expiresAt = new Date(now + DELEGATED_KEY_TTL_MS);
        const key = createApiKey(records, new Types.ObjectId(userId), DELEGATED_KEY_LABEL, expiresAt).then((issued) => issued.key);
        held = { key, renewAt: now + DELEGATED_KEY_TTL_MS - RENEW_BEFORE_MS };
        if (keys.size >= KEYS_KEPT) keys.clear();
        keys.set(userId, held);
        // A failed mint must not be remembered.
        key.catch(() => keys.get(userId) === held && keys.delete(userId));
      }
      return { Authorization: `Bearer ${await held.key}` };
    },
  };
}
