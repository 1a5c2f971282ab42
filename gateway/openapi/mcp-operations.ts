/**
 * The MCP endpoints (gateway/mcp/router.ts), briefly: their messages are JSON-RPC, described by the
 * MCP specification rather than here; `tools/list` is their catalogue.
 */
import { AUTHENTICATED, errorResponses } from './components.js';
import { jsonResponse, sseResponse } from './operation-parts.js';
import type { DocumentedRoute, Operation } from './openapi-types.js';

const MCP = 'MCP';
const JSON_RPC = { type: 'object', description: 'A JSON-RPC 2.0 message (or a batch of them), as the MCP specification defines it' };

const notAllowed = (summary: string): Operation => ({
  tags: [MCP],
  summary,
  description: 'The endpoint is stateless: there is no session to stream or end.',
  responses: { 405: jsonResponse('A JSON-RPC error; `Allow: POST`', JSON_RPC), ...errorResponses(...AUTHENTICATED) },
});

export function mcpRoutes(): DocumentedRoute[] {
  return [
    {
      method: 'post',
      path: '/mcp',
      operation: {
        tags: [MCP],
        summary: 'MCP over streamable HTTP (stateless)',
        description:
          'Tools, resources and prompts from the kinds\' contracts (`tools/list`, `resources/templates/list`, `prompts/list`). A new server answers each request, ' +
          'so any gateway behind a load balancer will do. A `tools/call` with a `progressToken` receives the actor\'s stream events as progress notifications.',
        requestBody: { required: true, content: { 'application/json': { schema: JSON_RPC } } },
        responses: {
          200: { description: 'The JSON-RPC answer: JSON, or SSE when the client accepts it (then progress notifications come first)', content: { 'application/json': { schema: JSON_RPC }, 'text/event-stream': { schema: { type: 'string' } } } },
          202: { description: 'A notification or response was accepted (no answer)' },
          ...errorResponses(...AUTHENTICATED),
        },
      },
    },
    { method: 'get', path: '/mcp', operation: notAllowed('Not used: answers 405') },
    { method: 'delete', path: '/mcp', operation: notAllowed('Not used: answers 405') },
    {
      method: 'get',
      path: '/sse',
      operation: {
        tags: [MCP],
        summary: 'MCP legacy SSE transport: open a session',
        description: 'For older clients (protocol 2024-11-05). The first event names the POST endpoint with the session id; POSTs there reach this stream from any gateway.',
        responses: {
          200: sseResponse('The session\'s stream.', { endpoint: 'The URL to POST messages to (`/messages?sessionId=…`).', message: 'A JSON-RPC message from the server.' }),
          ...errorResponses(...AUTHENTICATED),
        },
      },
    },
    {
      method: 'post',
      path: '/messages',
      operation: {
        tags: [MCP],
        summary: 'MCP legacy SSE transport: a client message',
        description: 'The answer arrives on the session\'s stream (GET /sse).',
        parameters: [{ name: 'sessionId', in: 'query', required: true, description: 'From the `endpoint` event', schema: { type: 'string', format: 'uuid' } }],
        requestBody: { required: true, content: { 'application/json': { schema: JSON_RPC } } },
        responses: { 202: { description: 'Accepted', content: { 'text/plain': { schema: { type: 'string' } } } }, ...errorResponses(400, ...AUTHENTICATED, 404) },
      },
    },
  ];
}
