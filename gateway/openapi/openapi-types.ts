/** The parts of an OpenAPI 3.1 document troupe writes (not the whole specification). */
import type { JsonSchema } from './json-schema.js';

export type Reference = { $ref: string };

export interface MediaType {
  schema: JsonSchema | Reference;
  example?: unknown;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface RequestBody {
  required: boolean;
  description?: string;
  content: Record<string, MediaType>;
}

export interface Response {
  description: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  content?: Record<string, MediaType>;
  /** SSE responses: the event names and what each carries. */
  'x-sse-events'?: Record<string, string>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface Operation {
  tags: string[];
  summary: string;
  description?: string;
  operationId?: string;
  parameters?: Parameter[];
  requestBody?: RequestBody;
  responses: Record<string, Response | Reference>;
  /** Absent: the document's default (an API key); `[]`: public. */
  security?: SecurityRequirement[];
}

export type HttpMethod = 'get' | 'post' | 'delete';

/** One route as the gateway registers it: a @koa/router path (`/games/:id`) and its operation. */
export interface DocumentedRoute {
  method: HttpMethod;
  path: string;
  operation: Operation;
}

export interface Tag {
  name: string;
  description?: string;
}
