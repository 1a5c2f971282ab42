/**
 * The routes kinds declare in their contracts (`http`, `batches`, `feeds`, `reads`, `cancels`), described
 * from the same zod shapes gateway/contract-routes.ts validates with, one tag per declaring kind.
 */
import { z } from 'zod';
import type {
  AnyKind,
  BatchRouteContract,
  CancelRouteContract,
  FeedRouteContract,
  HttpRouteContract,
  StateRouteContract,
} from '../../actors/runtime/contract.js';
import { ACTOR_CALL, AUTHENTICATED, errorResponses, JSON_BODY, type SchemaComponents } from './components.js';
import { answerFor, type ReplySchema } from './contract-answers.js';
import { responseSchema, shapeSchema, type JsonSchema } from './json-schema.js';
import {
  jsonRequestBody,
  jsonResponse,
  pathParameters,
  queryParameters,
  RESUME_PARAMETERS,
  sseResponse,
  STREAM_END_EVENTS,
  undeclaredReply,
} from './operation-parts.js';
import type { DocumentedRoute, Operation, Parameter, Reference, Response } from './openapi-types.js';
import { ContractBatchAccepted } from './platform-schemas.js';

/** Swagger UI shows the summary on one line: the description's first sentence, or its head before a colon when that is long. */
function summaryOf(description: string): Pick<Operation, 'summary' | 'description'> {
  let summary = /^(.+?[.!?])(\s|$)/.exec(description)?.[1] ?? description;
  const head = /^([^(]{12,}?): /.exec(summary)?.[1];
  if (summary.length > 80 && head) summary = head;
  return summary === description ? { summary } : { summary, description };
}

/** `scouting-records` + `Cancelled` -> `ScoutingRecordsCancelled`. */
const componentName = (kind: AnyKind, suffix: string) => kind.kind.replace(/(^|-)([a-z])/g, (_, _dash: string, letter: string) => letter.toUpperCase()) + suffix;

/** The reply schema a route answer names, if the kinds still declare it (a tool may have gone). */
function replySchema(reply: ReplySchema | undefined, kinds: AnyKind[], components: SchemaComponents): JsonSchema | Reference | undefined {
  if (reply === undefined) return undefined;
  if ('zod' in reply) return reply.component ? components.named(reply.component, reply.zod) : responseSchema(reply.zod);
  const output = kinds.flatMap((kind) => kind.tools ?? []).find((tool) => tool.name === reply.tool)?.output;
  return output ? components.named(reply.component, z.object(output)) : undefined;
}

/** A body every field of which may be left out may be left out itself: the gateway reads none as `{}`. */
const bodyRequired = (shape: z.ZodRawShape | undefined) => !z.object(shape ?? {}).strict().safeParse({}).success;

const nonEmpty = (parameters: Parameter[]) => (parameters.length ? { parameters } : {});

const DEFAULT_STREAM_EVENTS = { '(partial events)': 'What the kind emits while it works.', reply: 'The answer.', ...STREAM_END_EVENTS };

function httpRoute(kind: AnyKind, route: HttpRouteContract, kinds: AnyKind[], components: SchemaComponents): DocumentedRoute {
  const answer = answerFor(route.method, route.path);
  const hasBody = route.method === 'POST' && Object.keys(route.body ?? {}).length > 0;
  let ok: Response;
  if (route.stream) {
    const omitted = new Set(route.stream.omit ?? []);
    const events = Object.fromEntries(Object.entries(answer.events ?? DEFAULT_STREAM_EVENTS).filter(([name]) => !omitted.has(name)));
    ok = {
      ...sseResponse('The reply stream (`X-Message-Id` names the message; GET /replies/{messageId} resumes it). A refusal before the first event is a JSON error.', events),
      headers: { 'X-Message-Id': { description: 'The message\'s id', schema: { type: 'string', format: 'uuid' } } },
    };
  } else {
    const schema = replySchema(answer.reply, kinds, components);
    ok = schema ? jsonResponse('The reply', schema) : undeclaredReply('The reply');
  }
  return {
    method: route.method === 'GET' ? 'get' : route.method === 'DELETE' ? 'delete' : 'post',
    path: route.path,
    operation: {
      tags: [kind.kind],
      ...summaryOf(route.description),
      ...nonEmpty([...pathParameters(route.path, route.params), ...queryParameters(route.query)]),
      ...(hasBody ? { requestBody: jsonRequestBody(shapeSchema(route.body), { required: bodyRequired(route.body) }) } : {}),
      responses: { 200: ok, ...errorResponses(...ACTOR_CALL, ...(hasBody ? JSON_BODY : [])) },
    },
  };
}

/** Form fields arrive as strings, so only the files are described; other fields are the JSON body's. */
const MULTIPART_UPLOAD: JsonSchema = {
  type: 'object',
  description: 'Files in any field name (their file names are kept); other fields as in the JSON body',
  properties: { file: { type: 'array', items: { type: 'string', contentMediaType: 'application/octet-stream' } } },
};

function batchRoute(kind: AnyKind, route: BatchRouteContract, components: SchemaComponents): DocumentedRoute {
  const extra = answerFor('POST', route.path).reply;
  const accepted = extra && 'zod' in extra && extra.zod instanceof z.ZodObject ? ContractBatchAccepted.extend(extra.zod.shape) : ContractBatchAccepted;
  const limits = route.upload ? ` Uploads: up to ${route.upload.maxFiles} files of ${Math.round(route.upload.maxFileBytes / 2 ** 20)} MB each.` : '';
  return {
    method: 'post',
    path: route.path,
    operation: {
      tags: [kind.kind],
      ...summaryOf(route.description + limits),
      requestBody: jsonRequestBody(shapeSchema(route.body), { required: route.upload !== undefined || bodyRequired(route.body), ...(route.upload ? { alsoMultipart: MULTIPART_UPLOAD } : {}) }),
      responses: {
        202: jsonResponse('Accepted as a batch job: follow it at GET /batches/{id}', components.named(componentName(kind, 'BatchAccepted'), accepted)),
        ...errorResponses(...JSON_BODY, ...AUTHENTICATED, 404, 429),
      },
    },
  };
}

function feedRoute(kind: AnyKind, route: FeedRouteContract): DocumentedRoute {
  const events = answerFor('GET', route.path).events ?? { snapshot: 'What you see now (when the feed has one).', '(feed entries)': 'What the actor publishes for everyone or for you.', done: 'The feed has ended.' };
  return {
    method: 'get',
    path: route.path,
    operation: {
      tags: [kind.kind],
      ...summaryOf(route.description),
      parameters: [...pathParameters(route.path, route.params), ...RESUME_PARAMETERS],
      responses: { 200: sseResponse('The feed; resumable with Last-Event-ID.', events), ...errorResponses(400, ...AUTHENTICATED, 403, 404) },
    },
  };
}

function readRoute(kind: AnyKind, route: StateRouteContract, kinds: AnyKind[], components: SchemaComponents): DocumentedRoute {
  const schema = replySchema(answerFor('GET', route.path).reply, kinds, components);
  return {
    method: 'get',
    path: route.path,
    operation: {
      tags: [kind.kind],
      ...summaryOf(route.description),
      description: `${route.description} Read from the committed state, without waiting for a running turn.`,
      parameters: pathParameters(route.path, route.params),
      responses: { 200: schema ? jsonResponse('The view', schema) : undeclaredReply('The view'), ...errorResponses(400, ...AUTHENTICATED, 404) },
    },
  };
}

function cancelRoute(kind: AnyKind, route: CancelRouteContract, components: SchemaComponents): DocumentedRoute {
  const cancelled = z.object({ [`${kind.kind}_id`]: z.string(), cancelling: z.literal(true), messages: z.number().int().describe('How many messages were cancelled') });
  return {
    method: 'post',
    path: route.path,
    operation: {
      tags: [kind.kind],
      ...summaryOf(route.description),
      parameters: pathParameters(route.path, route.params),
      responses: { 202: jsonResponse('Cancelling', components.named(componentName(kind, 'Cancelled'), cancelled)), ...errorResponses(400, ...AUTHENTICATED, 404, 409) },
    },
  };
}

/** Every route the contract router mounts for these kinds (reads and cancels only for stateful kinds, as it does). */
export function contractRoutes(kinds: AnyKind[], components: SchemaComponents): DocumentedRoute[] {
  return kinds.flatMap((kind) => [
    ...(kind.http ?? []).map((route) => httpRoute(kind, route, kinds, components)),
    ...(kind.feeds ?? []).map((route) => feedRoute(kind, route)),
    ...(kind.batches ?? []).map((route) => batchRoute(kind, route, components)),
    ...(kind.stateful ? (kind.reads ?? []).map((route) => readRoute(kind, route, kinds, components)) : []),
    ...(kind.stateful ? (kind.cancels ?? []).map((route) => cancelRoute(kind, route, components)) : []),
  ]);
}
