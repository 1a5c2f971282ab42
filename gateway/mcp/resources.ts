/**
 * MCP resources, registered generically like tools: a kind may declare `resources`, each a URI template
 * whose read becomes one message to one actor; the reply becomes the resource text (mail:
 * `email://inbox/{inbox_id}/recent`, `email://thread/{thread_id}`).
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpError, ErrorCode, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { RequestError, type KindMcpSurface, type Logger, type ResourceContract } from '../../actors/runtime/contract.js';
import { callActor, type ActorCallDeps, type ActorFailure } from '../actor-call.js';
import type { CallerOf } from './server.js';
import { BROKER_RESET_CODE } from '../broker-reset-code.js';
import { dependencyOutageOf, OUTAGE_CODES } from '../dependency-outage.js';
import { failureText, runningKind } from './tools.js';

export type { ResourceContract } from '../../actors/runtime/contract.js';

/** JSON-RPC code MCP uses for "resource not found". */
const RESOURCE_NOT_FOUND = -32002;

export interface CatalogueResource {
  kind: KindMcpSurface;
  contract: ResourceContract;
}

/** Collects every kind's resources once, refusing undescribed or duplicate ones. */
export function resourceCatalogue(kinds: KindMcpSurface[]): CatalogueResource[] {
  const seen = new Set<string>();
  const resources: CatalogueResource[] = [];
  for (const kind of kinds) {
    for (const contract of kind.resources ?? []) {
      if (contract.description.trim() === '') throw new Error(`resource ${contract.name} of kind ${kind.kind} has no description`);
      if (seen.has(contract.name)) throw new Error(`resource ${contract.name} is declared twice`);
      seen.add(contract.name);
      resources.push({ kind, contract });
    }
  }
  return resources;
}

export interface ResourceDeps extends ActorCallDeps {
  logger: Logger;
}

const Variables = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

export function registerResources(server: McpServer, resources: CatalogueResource[], deps: ResourceDeps, callerOf: CallerOf): void {
  for (const { kind, contract } of resources) {
    server.registerResource(
      contract.name,
      new ResourceTemplate(contract.uriTemplate, { list: undefined }),
      { title: contract.title, description: contract.description, mimeType: contract.mimeType ?? 'application/json' },
      async (uri, variables, extra): Promise<ReadResourceResult> => {
        // A template variable may match a list (`{a*}`); a message field takes the first value.
        const user = callerOf(extra);
        const flat = Object.fromEntries(Object.entries(Variables.parse(variables)).map(([k, v]) => [k, Array.isArray(v) ? (v[0] ?? '') : v]));
        let answer;
        try {
          answer = await callActor(deps, { user, kind: runningKind(deps, kind), message: contract.toMessage(flat, { userId: user.id }), signal: extra.signal });
        } catch (thrown) {
          // A URI the contract refuses (e.g. a malformed id) is the client's mistake: say what is wrong.
          if (thrown instanceof RequestError) throw resourceError({ code: thrown.code, message: thrown.message, details: thrown.details ?? {} });
          const outage = dependencyOutageOf(thrown);
          if (outage) throw resourceError(outage);
          deps.logger.error({ err: thrown, resource: contract.name, userId: user.id }, 'MCP resource read failed');
          throw new McpError(ErrorCode.InternalError, 'the resource could not be read; try again later');
        }
        if (!answer.ok) throw resourceError(answer.failure);
        const text = contract.render ? contract.render(answer.data) : JSON.stringify(answer.data ?? null);
        return { contents: [{ uri: uri.href, mimeType: contract.mimeType ?? 'application/json', text }] };
      },
    );
  }
}

function resourceError(failure: ActorFailure): McpError {
  const code =
    failure.code === 'not_found' ? RESOURCE_NOT_FOUND : failure.code === 'bad_request' ? ErrorCode.InvalidParams : OUTAGE_CODES.has(failure.code) || failure.code === BROKER_RESET_CODE ? ErrorCode.InternalError : ErrorCode.InvalidRequest;
  return new McpError(code, failureText(failure), { code: failure.code, details: failure.details });
}
