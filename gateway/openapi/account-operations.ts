/** The account routes of gateway/account-routes.ts. */
import { KeyLabel, Prefix } from '../account-routes.js';
import { AUTHENTICATED, errorResponses, JSON_BODY, type SchemaComponents } from './components.js';
import { requestSchema } from './json-schema.js';
import { jsonRequestBody, jsonResponse } from './operation-parts.js';
import type { DocumentedRoute } from './openapi-types.js';
import { KeyList, Me, NewKey, RevokedKey, Usage } from './platform-schemas.js';

const ACCOUNT = 'Account';

export function accountRoutes(components: SchemaComponents): DocumentedRoute[] {
  return [
    {
      method: 'get',
      path: '/me',
      operation: { tags: [ACCOUNT], summary: 'Who you are', responses: { 200: jsonResponse('You', components.named('Me', Me)), ...errorResponses(...AUTHENTICATED) } },
    },
    {
      method: 'get',
      path: '/me/keys',
      operation: {
        tags: [ACCOUNT],
        summary: 'Your API keys',
        description: 'Prefixes, labels and dates, never a secret; `current` marks the key of this request.',
        responses: { 200: jsonResponse('Your keys', components.named('KeyList', KeyList)), ...errorResponses(...AUTHENTICATED) },
      },
    },
    {
      method: 'post',
      path: '/me/keys',
      operation: {
        tags: [ACCOUNT],
        summary: 'Another API key',
        description: 'The key is shown this once (`Cache-Control: no-store`).',
        requestBody: jsonRequestBody(KeyLabel, { required: false }),
        responses: { 201: jsonResponse('The new key', components.named('NewKey', NewKey)), ...errorResponses(...JSON_BODY, ...AUTHENTICATED) },
      },
    },
    {
      method: 'delete',
      path: '/me/keys/:prefix',
      operation: {
        tags: [ACCOUNT],
        summary: 'Revoke one of your keys',
        parameters: [{ name: 'prefix', in: 'path', required: true, description: 'The key\'s prefix (GET /me/keys)', schema: requestSchema(Prefix) }],
        responses: { 200: jsonResponse('Revoked', components.named('RevokedKey', RevokedKey)), ...errorResponses(400, ...AUTHENTICATED, 404) },
      },
    },
    {
      method: 'get',
      path: '/me/usage',
      operation: {
        tags: [ACCOUNT],
        summary: 'Your limits per kind and where you stand',
        responses: { 200: jsonResponse('Each kind\'s limits and usage', components.named('Usage', Usage)), ...errorResponses(...AUTHENTICATED) },
      },
    },
  ];
}
