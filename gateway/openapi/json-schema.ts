/**
 * zod -> JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) with zod 4's own `z.toJSONSchema`.
 *
 * Requests are described as the gateway validates them (the input side: a field with a default is
 * optional). Responses are described as the actors answer (the output side) with objects left open:
 * a reply is sent as the handler wrote it, so it may carry a field the schema does not name, and
 * clients should ignore what they do not know. Only `.strict()` objects stay closed.
 */
import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;

export const isZodSchema = (schema: z.ZodType | JsonSchema): schema is z.ZodType => typeof (schema as { safeParse?: unknown }).safeParse === 'function';

type Direction = 'request' | 'response';

function convert(schema: z.ZodType, direction: Direction): JsonSchema {
  const converted = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: direction === 'request' ? 'input' : 'output',
    // A transform or custom check has no JSON Schema: document the route loosely rather than fail start-up.
    unrepresentable: 'any',
    override: (ctx) => {
      const def = ctx.zodSchema._zod.def as { type: string; catchall?: unknown };
      if (direction === 'response' && def.type === 'object' && def.catchall === undefined) delete ctx.jsonSchema.additionalProperties;
      // z.int() states JavaScript's safe-integer range, which says nothing to a reader and shows up in examples.
      if (ctx.jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete ctx.jsonSchema.minimum;
      if (ctx.jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete ctx.jsonSchema.maximum;
    },
  }) as JsonSchema;
  // `#/$defs/...` inside an embedded schema would resolve against the document root, where nothing is.
  if (converted.$defs !== undefined) throw new Error('a recursive zod schema needs a named component in the OpenAPI document');
  delete converted.$schema;
  return converted;
}

export const requestSchema = (schema: z.ZodType): JsonSchema => convert(schema, 'request');
export const responseSchema = (schema: z.ZodType): JsonSchema => convert(schema, 'response');

/** A contract's shape (params, query, body) as the strict object the gateway parses it with. */
export const shapeSchema = (shape: z.ZodRawShape | undefined): JsonSchema => requestSchema(z.object(shape ?? {}).strict());
