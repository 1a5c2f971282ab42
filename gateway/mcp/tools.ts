/**
 * MCP tools, registered generically from the actor kinds' tool contracts: a call becomes one message to
 * one actor (`toMessage`), its reply becomes `structuredContent` (checked against the output shape)
 * with a JSON text copy in `content`, and an `error` event or a refusal becomes a tool error
 * (`isError: true`) the model can read and act on.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ActorClient } from '../../actors/runtime/client.js';
import { RuntimeError } from '../../actors/runtime/runtime-error.js';
import { RequestError, type AnyKind, type KindMcpSurface, type Logger, type ToolContract } from '../../actors/runtime/contract.js';
import { dependencyOutageOf } from '../dependency-outage.js';
import { ApiError } from '../error-response.js';
import { callActor, type ActorCallDeps, type ActorFailure, type McpUser } from '../actor-call.js';
import { progressReporter } from './progress.js';
import type { CallerOf } from './server.js';

/** The MCP tool-name rule (SEP-986) without the forms the SDK warns about on the console. */
const TOOL_NAME = /^[A-Za-z0-9_](?:[A-Za-z0-9._-]{0,126}[A-Za-z0-9_])?$/;

/** A tool contract with its kind and its compiled schemas. */
export interface CatalogueTool {
  kind: KindMcpSurface;
  contract: ToolContract;
  /** Strict: an unknown argument is an error the caller sees, not something silently dropped. */
  input: z.ZodObject<z.ZodRawShape>;
  output?: z.ZodObject<z.ZodRawShape>;
}

/**
 * The running kind behind a catalogue entry: the catalogue holds only what MCP lists (built from the
 * kinds' contracts alone by `troupe mcp`), the gateway's client holds the kinds it runs.
 */
export function runningKind(deps: Pick<ActorCallDeps, 'client'>, surface: KindMcpSurface): AnyKind {
  const kind = deps.client.kind(surface.kind);
  if (!kind) throw new Error(`the MCP catalogue names the kind ${surface.kind}, which this process does not run`);
  return kind;
}

/** Collects every kind's tools once (at start-up), refusing nameless, undescribed or duplicate tools. */
export function toolCatalogue(kinds: KindMcpSurface[]): CatalogueTool[] {
  const seen = new Map<string, string>();
  const tools: CatalogueTool[] = [];
  for (const kind of kinds) {
    for (const contract of kind.tools ?? []) {
      if (!TOOL_NAME.test(contract.name)) throw new Error(`tool name '${contract.name}' of kind ${kind.kind} breaks the MCP naming rule ${TOOL_NAME}`);
      if (contract.description.trim() === '') throw new Error(`tool ${contract.name} of kind ${kind.kind} has no description`);
      const other = seen.get(contract.name);
      if (other !== undefined) throw new Error(`tool ${contract.name} is declared by both ${other} and ${kind.kind}`);
      seen.set(contract.name, kind.kind);
      tools.push({
        kind,
        contract,
        input: z.object(contract.input).strict(),
        output: contract.output ? z.object(contract.output) : undefined,
      });
    }
  }
  return tools;
}

export interface ToolDeps extends ActorCallDeps {
  logger: Logger;
  /** For tools that wait on an actor's feed (`follow`). */
  client: ActorCallDeps['client'] & Pick<ActorClient, 'followFeed' | 'feedPosition'>;
}

/**
 * The wait of a `follow` tool: from where the feed stands now, the first entry `answer` accepts, or
 * the timed-out answer once `waitMs` passes (or the caller goes away). Nothing runs on a worker.
 */
async function followAnswer(deps: ToolDeps, user: McpUser, follow: NonNullable<ToolContract['follow']>, reply: unknown, signal: AbortSignal): Promise<unknown> {
  const ready = follow.ready?.(reply);
  if (ready !== undefined) return ready;
  const actor = follow.feed(reply);
  const from = follow.from?.(reply) ?? (await deps.client.feedPosition(actor));
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(follow.waitMs(reply))]);
  try {
    for await (const entry of deps.client.followFeed(actor, user.id, { lastEventId: from, signal: deadline })) {
      const answer = follow.answer(entry, reply);
      if (answer !== undefined) return answer;
    }
  } catch (error) {
    if (!deadline.aborted) throw error;
  }
  return follow.timedOut(reply);
}

/** Registers the catalogue's tools; each call is made on behalf of the caller `callerOf` resolves. */
export function registerTools(server: McpServer, tools: CatalogueTool[], deps: ToolDeps, callerOf: CallerOf): void {
  for (const tool of tools) {
    const { contract } = tool;
    server.registerTool(
      contract.name,
      { title: contract.title, description: contract.description, inputSchema: tool.input, outputSchema: tool.output },
      async (args: Record<string, unknown>, extra): Promise<CallToolResult> => {
        const user = callerOf(extra);
        const progress = progressReporter(extra);
        try {
          const message = contract.toMessage(args, { userId: user.id, name: user.name });
          const answer = await callActor(deps, { user, kind: runningKind(deps, tool.kind), message, signal: extra.signal, onEvent: (e) => progress.report(e) });
          await progress.flush();
          if (!answer.ok) return failureResult(answer.failure);
          const data = contract.follow ? await followAnswer(deps, user, contract.follow, answer.data, extra.signal) : answer.data;
          return successResult(tool, data, deps.logger);
        } catch (thrown) {
          // toMessage may refuse arguments the schema let through (e.g. a combination); that is the caller's error.
          if (thrown instanceof RuntimeError) return failureResult({ code: thrown.code, message: thrown.message, details: {} });
          if (thrown instanceof ApiError && thrown.status < 500) return failureResult(thrown);
          if (thrown instanceof RequestError) return failureResult({ code: thrown.code, message: thrown.message, details: thrown.details ?? {} });
          const outage = dependencyOutageOf(thrown);
          if (outage) return failureResult(outage);
          deps.logger.error({ err: thrown, tool: contract.name, userId: user.id }, 'MCP tool call failed');
          return failureResult({ code: 'internal_error', message: 'the tool failed unexpectedly; try again later', details: {} });
        }
      },
    );
  }
}

function successResult(tool: CatalogueTool, data: unknown, logger: Logger): CallToolResult {
  if (!tool.output) {
    const structured = typeof data === 'object' && data !== null && !Array.isArray(data) ? { structuredContent: data as Record<string, unknown> } : {};
    return { content: [{ type: 'text', text: JSON.stringify(data ?? null) }], ...structured };
  }
  const parsed = tool.output.safeParse(data);
  if (!parsed.success) {
    // The actor broke its own contract: a server bug, reported as such rather than passed on unchecked.
    logger.error({ tool: tool.contract.name, issues: parsed.error.issues }, 'actor reply does not match the tool output schema');
    return failureResult({ code: 'invalid_reply', message: `${tool.kind.kind} answered ${tool.contract.name} with data that does not match its output schema`, details: {} });
  }
  const text = tool.contract.text ? tool.contract.text(parsed.data) : JSON.stringify(parsed.data);
  return { structuredContent: parsed.data, content: [{ type: 'text', text }] };
}

/** A tool error: readable text for the model, the structured failure in `_meta` for programs. */
export function failureResult(failure: ActorFailure): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: failureText(failure) }],
    _meta: { 'troupe/error': { code: failure.code, message: failure.message, details: failure.details } },
  };
}

export function failureText(failure: ActorFailure): string {
  const retryAfter = failure.details.retryAfterSeconds;
  if (typeof retryAfter === 'number') return `Rate limited: ${failure.message}. Retry after ${retryAfter} seconds.`;
  return `${failure.message} (${failure.code})`;
}
