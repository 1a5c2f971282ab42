/**
 * A stateless streamable-HTTP request answered with one JSON body: the MCP SDK's `Transport` for the
 * case the gateway serves most (a POST that asks for no progress, so needs no event stream).
 *
 * The SDK's StreamableHTTPServerTransport serves it too, but turns every Node request and response into
 * a web Request and Response (through @hono/node-server) first. That cost ~0.5 ms of gateway CPU per
 * tool call here, on a path whose whole budget is a few milliseconds. This transport takes the body the
 * gateway parsed already and writes the answer straight to the Node response. It keeps the SDK's rules
 * for such a request (specification 2025-06-18, "Streamable HTTP"), with the SDK's own schemas and
 * constants: Accept must name application/json and text/event-stream (406), the body must be JSON
 * (415), at most MAX_BATCH_SIZE messages that are all JSON-RPC (400), one initialize request alone,
 * a supported MCP-Protocol-Version (400), notifications and responses only: 202. Requests that carry a
 * progress token still go through the SDK's transport, which streams.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  isInitializeRequest,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/** Why a request was refused before any of it reached the server: the HTTP status and JSON-RPC error. */
export class RefusedMcpRequest extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The messages of a POST body, checked as the SDK's transport checks them. */
export function mcpMessagesOf(req: IncomingMessage, body: unknown): JSONRPCMessage[] {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    throw new RefusedMcpRequest(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
  }
  if (!isJsonContentType(req.headers['content-type'] ?? null)) throw new RefusedMcpRequest(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
  if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) throw new RefusedMcpRequest(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  const parsed = (Array.isArray(body) ? body : [body]).map((message) => JSONRPCMessageSchema.safeParse(message));
  if (parsed.some((p) => !p.success)) throw new RefusedMcpRequest(400, -32700, 'Parse error: Invalid JSON-RPC message');
  const messages = parsed.map((p) => p.data!);
  if (messages.some((m) => 'method' in m && m.method === 'initialize' && isInitializeRequest(m))) {
    if (messages.length > 1) throw new RefusedMcpRequest(400, -32600, 'Invalid Request: Only one initialization request is allowed');
  } else {
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string' && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      throw new RefusedMcpRequest(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
    }
  }
  return messages;
}

// Shapes of messages JSONRPCMessageSchema has already checked (the server's own, or the request's).
const isRequest = (message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; method: string } => 'method' in message && 'id' in message;
const isResponse = (message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } => 'id' in message && !('method' in message);

export class JsonResponseTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** The requests of this POST, each with its response once the server has sent it. */
  private readonly answers = new Map<RequestId, JSONRPCMessage | undefined>();
  private answered?: (responses: JSONRPCMessage[]) => void;
  private closed = false;

  async start(): Promise<void> {}

  /**
   * Hands the messages to the server; resolves with the responses to its requests, in their order
   * (none when the body held only notifications and responses).
   */
  deliver(messages: JSONRPCMessage[], extra: { authInfo: AuthInfo; requestInfo: MessageExtraInfo['requestInfo'] }): Promise<JSONRPCMessage[]> {
    for (const message of messages) if (isRequest(message)) this.answers.set(message.id, undefined);
    const all = this.answers.size === 0 ? Promise.resolve([]) : new Promise<JSONRPCMessage[]>((resolve) => (this.answered = resolve));
    for (const message of messages) this.onmessage?.(message, extra);
    return all;
  }

  /** Responses are kept until every request has one; notifications have nowhere to go without a stream (as in the SDK's JSON mode). */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!isResponse(message)) return;
    if (!this.answers.has(message.id)) throw new Error(`No connection established for request ID: ${String(message.id)}`);
    this.answers.set(message.id, message);
    const responses = [...this.answers.values()];
    if (responses.every((r) => r !== undefined)) this.answered?.(responses as JSONRPCMessage[]);
  }

  /** The server let go of this request (the client left): whatever it has not answered never will be. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.answered?.([]);
    this.onclose?.();
  }
}

/** Writes a JSON body: one response alone, several as a batch, none as 202 Accepted. */
export function writeJsonResponses(res: ServerResponse, responses: JSONRPCMessage[]): void {
  if (responses.length === 0) {
    res.writeHead(202).end();
    return;
  }
  const body = JSON.stringify(responses.length === 1 ? responses[0] : responses);
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
}

export function writeRefusal(res: ServerResponse, refusal: RefusedMcpRequest): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: refusal.code, message: refusal.message }, id: null });
  res.writeHead(refusal.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) }).end(body);
}
