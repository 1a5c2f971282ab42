/** Building blocks of operations: parameters from zod shapes, JSON bodies, JSON and SSE responses. */
import type { z } from 'zod';
import { isZodSchema, requestSchema, shapeSchema, type JsonSchema } from './json-schema.js';
import type { MediaType, Parameter, Reference, RequestBody, Response } from './openapi-types.js';

const PATH_PARAMETER = /:([A-Za-z0-9_]+)/g;

/** `/games/:id/events` -> `/games/{id}/events`. */
export const openApiPath = (koaPath: string): string => koaPath.replace(PATH_PARAMETER, '{$1}');

const pathParameterNames = (koaPath: string): string[] => [...koaPath.matchAll(PATH_PARAMETER)].map((match) => match[1]!);

type ObjectSchema = { properties?: Record<string, JsonSchema>; required?: string[] };

function parametersOf(where: 'path' | 'query', names: string[], object: ObjectSchema): Parameter[] {
  return names.map((name) => {
    const schema = object.properties?.[name] ?? { type: 'string' };
    const description = typeof schema.description === 'string' ? schema.description : undefined;
    return { name, in: where, required: where === 'path' || (object.required ?? []).includes(name), ...(description ? { description } : {}), schema };
  });
}

/** Every `:name` of the path, typed by the route's params shape where it declares one (a string otherwise). */
export const pathParameters = (koaPath: string, shape?: z.ZodRawShape): Parameter[] => parametersOf('path', pathParameterNames(koaPath), shapeSchema(shape) as ObjectSchema);

export function queryParameters(shape: z.ZodRawShape | undefined): Parameter[] {
  const object = shapeSchema(shape) as ObjectSchema;
  return parametersOf('query', Object.keys(object.properties ?? {}), object);
}

export const headerParameter = (name: string, description: string, schema: z.ZodType | JsonSchema = { type: 'string' }): Parameter => ({
  name,
  in: 'header',
  required: false,
  description,
  schema: isZodSchema(schema) ? requestSchema(schema) : schema,
});

/** Resuming an SSE stream: the id of the last event received, as the header or the query parameter. */
export const RESUME_PARAMETERS: Parameter[] = [
  headerParameter('Last-Event-ID', 'Resume after this event id (EventSource sends it on reconnect).'),
  { name: 'lastEventId', in: 'query', required: false, description: 'The same as Last-Event-ID, for clients that cannot set headers.', schema: { type: 'string', pattern: '^\\d{1,20}-\\d{1,20}$' } },
];

export function jsonRequestBody(schema: z.ZodType | JsonSchema, options: { required?: boolean; description?: string; alsoMultipart?: JsonSchema } = {}): RequestBody {
  const content: Record<string, MediaType> = { 'application/json': { schema: isZodSchema(schema) ? requestSchema(schema) : schema } };
  if (options.alsoMultipart) content['multipart/form-data'] = { schema: options.alsoMultipart };
  return { required: options.required ?? true, ...(options.description ? { description: options.description } : {}), content };
}

export const jsonResponse = (description: string, schema: JsonSchema | Reference): Response => ({ description, content: { 'application/json': { schema } } });

/** A reply whose shape no contract declares: said so, rather than guessed. */
export const undeclaredReply = (description: string): Response =>
  jsonResponse(description, { type: 'object', description: 'The actor\'s reply as JSON. Its contract declares no schema for it, so its fields are not listed here.' });

const SSE_FRAMES =
  'Server-Sent Events: each event has `event:` (its name), `id:` (a reply-stream entry id; resume with Last-Event-ID) and `data:` (JSON). ' +
  'Comment lines (`: heartbeat`) keep an idle connection open.';

const SSE_CONTENT: MediaType = { schema: { type: 'string', description: SSE_FRAMES } };

const eventList = (events: Record<string, string>) =>
  'Events:\n' +
  Object.entries(events)
    .map(([name, meaning]) => `- \`${name}\`: ${meaning}`)
    .join('\n');

/** A text/event-stream answer with its event names, in the description (for people) and `x-sse-events` (for tools). */
export const sseResponse = (description: string, events: Record<string, string>): Response => ({
  description: `${description}\n\n${eventList(events)}`,
  content: { 'text/event-stream': SSE_CONTENT },
  'x-sse-events': events,
});

/** JSON by default, the reply stream with `Accept: text/event-stream`. */
export const jsonOrSseResponse = (description: string, schema: JsonSchema | Reference, events: Record<string, string>): Response => ({
  description: `${description}\n\n${eventList(events)}`,
  content: { 'application/json': { schema }, 'text/event-stream': SSE_CONTENT },
  'x-sse-events': events,
});

/** The events every reply stream ends with. */
export const STREAM_END_EVENTS = {
  done: 'The stream ends here (after the reply).',
  error: 'The message failed: `{code, message, details}`; the stream ends.',
};
