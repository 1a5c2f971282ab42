/** The generic actor routes of gateway/actor-routes.ts, described from the schemas they validate with. */
import { z } from 'zod';
import { ActorId, ActorKindName } from '../../queues/envelope.js';
import { BatchBody, IdempotencyKey, MessageId, ResultsQuery, SendBody } from '../actor-routes.js';
import { ACTOR_CALL, AUTHENTICATED, errorResponses, JSON_BODY, type SchemaComponents } from './components.js';
import { requestSchema } from './json-schema.js';
import { headerParameter, jsonOrSseResponse, jsonRequestBody, jsonResponse, queryParameters, RESUME_PARAMETERS, sseResponse, STREAM_END_EVENTS } from './operation-parts.js';
import type { DocumentedRoute, Parameter } from './openapi-types.js';
import { ActorStateAnswer, BatchAccepted, BatchProgress, BatchResults, MessageAnswer } from './platform-schemas.js';

const ACTORS = 'Actors (generic)';
const BATCHES = 'Batches';

const parameter = (name: string, schema: z.ZodType, description: string): Parameter => ({ name, in: 'path', required: true, description, schema: requestSchema(schema) });
const KIND = parameter('kind', ActorKindName, 'An actor kind (GET /me/usage lists them)');
const ACTOR_ID = parameter('id', ActorId, 'The actor\'s id, chosen by the caller; the first message creates the actor');
const BATCH_ID = parameter('id', z.uuid(), 'The batchId POST /batches (or a kind\'s batch route) answered');

const REPLY_EVENTS = {
  '(partial events)': 'Whatever the kind emits while it works, e.g. `token`, `progress`.',
  reply: 'The actor\'s answer.',
  ...STREAM_END_EVENTS,
};

const BATCH_EVENTS = { progress: '`{batchId, total, done, failed, finished}` after each finished message.', done: 'The batch has finished (the final progress); the stream ends.' };

function sendOperation(components: SchemaComponents, what: 'actor' | 'service'): DocumentedRoute['operation'] {
  return {
    tags: [ACTORS],
    summary: what === 'actor' ? 'Send a message to one actor' : 'Send a request to a stateless service kind',
    description:
      'Validated against the kind\'s message schema, admitted through your limits, then queued. With `Accept: text/event-stream` the answer is the reply stream; ' +
      'otherwise the gateway waits for the reply. `X-Message-Id` names the message (GET /replies/{messageId} follows it).',
    parameters: [
      KIND,
      ...(what === 'actor' ? [ACTOR_ID] : []),
      headerParameter('Idempotency-Key', 'Per user, 24 h: a repeat answers with the first message\'s replies and enqueues nothing.', IdempotencyKey),
    ],
    requestBody: jsonRequestBody(SendBody),
    responses: {
      200: {
        ...jsonOrSseResponse(
          'The reply and the partial events before it; with `Accept: text/event-stream`, the reply stream as it comes.',
          components.named('MessageAnswer', MessageAnswer),
          REPLY_EVENTS,
        ),
        headers: { 'X-Message-Id': { description: 'The message\'s id', schema: { type: 'string', format: 'uuid' } } },
      },
      ...errorResponses(...ACTOR_CALL, ...JSON_BODY),
    },
  };
}

export function actorRoutes(components: SchemaComponents): DocumentedRoute[] {
  return [
    { method: 'post', path: '/actors/:kind/:id/messages', operation: sendOperation(components, 'actor') },
    {
      method: 'get',
      path: '/actors/:kind/:id',
      operation: {
        tags: [ACTORS],
        summary: 'An actor\'s committed state',
        description: 'Only the owner reads it; a `shared` kind (a game) never serves its raw state.',
        parameters: [KIND, ACTOR_ID],
        responses: { 200: jsonResponse('The state', components.named('ActorState', ActorStateAnswer)), ...errorResponses(400, ...AUTHENTICATED, 404) },
      },
    },
    { method: 'post', path: '/services/:kind/messages', operation: sendOperation(components, 'service') },
    {
      method: 'get',
      path: '/replies/:messageId',
      operation: {
        tags: [ACTORS],
        summary: 'Follow the reply stream of one of your messages',
        description: 'Any gateway serves any stream; it ends with `done` or `error`.',
        parameters: [parameter('messageId', MessageId, 'The X-Message-Id of the message'), ...RESUME_PARAMETERS],
        responses: { 200: sseResponse('The reply stream.', REPLY_EVENTS), ...errorResponses(400, ...AUTHENTICATED, 404) },
      },
    },
    {
      method: 'post',
      path: '/batches',
      operation: {
        tags: [BATCHES],
        summary: 'Enqueue many messages as one batch job',
        description: 'Up to 10,000 messages to one kind. Each message\'s `id` is the id of the actor it goes to (required for a stateful kind, left out for a service). Counts once against the rate limit.',
        requestBody: jsonRequestBody(BatchBody),
        responses: { 202: jsonResponse('Accepted: where to follow it', components.named('BatchAccepted', BatchAccepted)), ...errorResponses(...JSON_BODY, ...AUTHENTICATED, 404, 429) },
      },
    },
    {
      method: 'get',
      path: '/batches/:id',
      operation: {
        tags: [BATCHES],
        summary: 'A batch\'s progress',
        parameters: [BATCH_ID],
        responses: { 200: jsonResponse('Progress', components.named('BatchProgress', BatchProgress)), ...errorResponses(400, ...AUTHENTICATED, 404) },
      },
    },
    {
      method: 'get',
      path: '/batches/:id/events',
      operation: {
        tags: [BATCHES],
        summary: 'A batch\'s progress as SSE',
        parameters: [BATCH_ID, ...RESUME_PARAMETERS],
        responses: { 200: sseResponse('Progress events until the batch finishes.', BATCH_EVENTS), ...errorResponses(400, ...AUTHENTICATED, 404) },
      },
    },
    {
      method: 'get',
      path: '/batches/:id/results',
      operation: {
        tags: [BATCHES],
        summary: 'Each finished message of a batch, a page at a time',
        description: 'In the order they finished; pass `next` as `after` for the following page.',
        parameters: [BATCH_ID, ...queryParameters(ResultsQuery.shape)],
        responses: { 200: jsonResponse('One page', components.named('BatchResults', BatchResults)), ...errorResponses(400, ...AUTHENTICATED, 404) },
      },
    },
  ];
}
