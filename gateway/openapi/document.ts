/**
 * The gateway's OpenAPI 3.1 document: the platform's routes and every route the kinds' contracts
 * declare, with their zod schemas as JSON Schema (zod 4's z.toJSONSchema). Built once per gateway.
 */
import packageJson from '../../package.json' with { type: 'json' };
import type { AnyKind } from '../../actors/runtime/contract.js';
import { accountRoutes } from './account-operations.js';
import { adminRoutes, adminSessionScheme } from './admin-operations.js';
import { actorRoutes } from './actor-operations.js';
import { API_KEY_SECURITY, errorResponseComponents, SchemaComponents, securitySchemes } from './components.js';
import { contractRoutes } from './contract-operations.js';
import { mcpRoutes } from './mcp-operations.js';
import { openApiPath } from './operation-parts.js';
import type { DocumentedRoute, Operation, Tag } from './openapi-types.js';
import { publicRoutes } from './public-operations.js';

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  security: typeof API_KEY_SECURITY;
  tags: Tag[];
  paths: Record<string, Record<string, Operation>>;
  components: Record<string, unknown>;
}

const DESCRIPTION = [
  'troupe\'s HTTP API. Every long-lived thing is an actor; the gateway turns these routes into messages and streams the replies back.',
  '',
  '- **Auth**: an API key as `Authorization: Bearer KEY` or `X-API-Key: KEY`, except on the routes marked public. Another user\'s actor answers 404.',
  '- **Errors**: always `{"error": {"code", "message", "details"}}`.',
  '- **Bodies**: JSON only (`415` otherwise, `413` beyond BODY_LIMIT). Every response carries `X-Request-Id`.',
  '- **Streams**: Server-Sent Events with `id:` (resume with `Last-Event-ID`) and JSON `data:`; a reply stream ends with `done` or `error`.',
  '- **MCP**: the same tools at `POST /mcp`; their input and output schemas are in `tools/list`.',
].join('\n');

/** `post_games_id_moves`: unique per method and path, readable in generated clients. */
const operationIdOf = (route: DocumentedRoute) => `${route.method}${route.path.replace(/[^A-Za-z0-9]+/g, '_')}`.replace(/_$/, '');

function tagsOf(kinds: AnyKind[], routes: DocumentedRoute[]): Tag[] {
  const described = new Map(kinds.map((kind) => [kind.kind, kind.description]));
  const names = [...new Set(routes.flatMap((route) => route.operation.tags))];
  return names.map((name) => (described.has(name) ? { name, description: described.get(name) } : { name }));
}

export function buildOpenApiDocument(kinds: AnyKind[]): OpenApiDocument {
  const components = new SchemaComponents();
  const routes = [...publicRoutes(components), ...accountRoutes(components), ...actorRoutes(components), ...contractRoutes(kinds, components), ...mcpRoutes(), ...adminRoutes()];
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) {
    const item = (paths[openApiPath(route.path)] ??= {});
    if (item[route.method]) throw new Error(`${route.method.toUpperCase()} ${route.path} is documented twice`);
    item[route.method] = { ...route.operation, operationId: operationIdOf(route) };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'troupe', version: packageJson.version, description: DESCRIPTION },
    security: API_KEY_SECURITY,
    tags: tagsOf(kinds, routes),
    paths,
    components: { schemas: components.all(), responses: errorResponseComponents(), securitySchemes: { ...securitySchemes, adminSession: adminSessionScheme } },
  };
}
