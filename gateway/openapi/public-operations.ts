/**
 * The routes that need no API key: health, readiness and metrics, the login exchange, the web client,
 * this API description and its reader, and the signed mail webhooks.
 */
import { LoginBody } from '../login.js';
import { GenericMail, WEBHOOK_PATH } from '../mail-inbound.js';
import { errorResponses, JSON_BODY, type SchemaComponents } from './components.js';
import { DOCS_FILE_ROUTE, DOCS_PATH, OPENAPI_PATH } from './docs-paths.js';
import { headerParameter, jsonRequestBody, jsonResponse } from './operation-parts.js';
import type { DocumentedRoute, Response } from './openapi-types.js';
import { Health, LoginAnswer, MailDelivery, Readiness } from './platform-schemas.js';

const OPERATIONS = 'Operations';
const ACCOUNT = 'Account';
const WEB = 'Web client and documentation';
const MAIL_WEBHOOKS = 'Mail webhooks';
const PUBLIC: [] = [];

const html = (description: string): Response => ({ description, content: { 'text/html': { schema: { type: 'string' } } } });
const file = (description: string): Response => ({ description, content: { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } } } });
const FILE_PARAMETER = (description: string) => ({ name: 'file', in: 'path' as const, required: true, description, schema: { type: 'string' } });

function operationsRoutes(components: SchemaComponents): DocumentedRoute[] {
  return [
    {
      method: 'get',
      path: '/healthz',
      operation: { tags: [OPERATIONS], summary: 'Liveness: the process is up', description: 'Touches no dependency.', security: PUBLIC, responses: { 200: jsonResponse('Up', components.named('Health', Health)) } },
    },
    {
      method: 'get',
      path: '/readyz',
      operation: {
        tags: [OPERATIONS],
        summary: 'Readiness: RedisClient, MongoDB and a worker for every kind answer',
        description: 'Each check is bounded by a 2 s timeout.',
        security: PUBLIC,
        responses: { 200: jsonResponse('Ready', components.named('Readiness', Readiness)), 503: jsonResponse('Not ready: `errors` says why', components.named('Readiness', Readiness)) },
      },
    },
    {
      method: 'get',
      path: '/metrics',
      operation: {
        tags: [OPERATIONS],
        summary: 'Prometheus metrics',
        description: 'The Prometheus text format. Open unless METRICS_TOKEN is set; then it needs `Authorization: Bearer METRICS_TOKEN`.',
        security: [{}, { metricsToken: [] }],
        responses: { 200: { description: 'The metrics', content: { 'text/plain': { schema: { type: 'string' } } } }, ...errorResponses(401) },
      },
    },
  ];
}

function webRoutes(components: SchemaComponents): DocumentedRoute[] {
  return [
    {
      method: 'post',
      path: '/auth/login',
      operation: {
        tags: [ACCOUNT],
        summary: 'Trade a single-use login token for an API key',
        description: 'The token comes from the `?login=` link `troupe start` or `troupe login-link` prints. The answer is never cached.',
        security: PUBLIC,
        requestBody: jsonRequestBody(LoginBody),
        responses: { 200: jsonResponse('A new API key', components.named('Login', LoginAnswer)), ...errorResponses(...JSON_BODY, 401) },
      },
    },
    {
      method: 'get',
      path: '/',
      operation: { tags: [WEB], summary: 'The web client', description: '`/?login=TOKEN` signs in with a login link. Never cached; strict CSP.', security: PUBLIC, responses: { 200: html('The page') } },
    },
    {
      method: 'get',
      path: '/assets/:file',
      operation: {
        tags: [WEB],
        summary: 'The web client\'s content-hashed files',
        description: 'Cached a year (`immutable`), brotli or gzip when accepted.',
        security: PUBLIC,
        parameters: [FILE_PARAMETER('A file name the build wrote')],
        responses: { 200: file('The file'), ...errorResponses(404) },
      },
    },
    {
      method: 'get',
      path: OPENAPI_PATH,
      operation: {
        tags: [WEB],
        summary: 'This API description (OpenAPI 3.1)',
        description: 'Generated from the zod schemas the gateway validates with.',
        security: PUBLIC,
        responses: { 200: jsonResponse('The document', { type: 'object', description: 'An OpenAPI 3.1 document' }) },
      },
    },
    { method: 'get', path: DOCS_PATH, operation: { tags: [WEB], summary: 'The API reference (Swagger UI)', security: PUBLIC, responses: { 200: html('The page') } } },
    {
      method: 'get',
      path: DOCS_FILE_ROUTE,
      operation: {
        tags: [WEB],
        summary: 'The API reference\'s files',
        description: 'Swagger UI\'s stylesheet, script and icons (from the swagger-ui-dist package, never a CDN), and the page\'s own start-up script.',
        security: PUBLIC,
        parameters: [FILE_PARAMETER('e.g. swagger-ui.css, swagger-ui-bundle.js')],
        responses: { 200: file('The file'), ...errorResponses(404) },
      },
    },
  ];
}

function mailWebhookRoutes(components: SchemaComponents): DocumentedRoute[] {
  const delivered = jsonResponse('Delivered to the troupe inboxes among the recipients', components.named('MailDelivery', MailDelivery));
  const refusals = {
    ...errorResponses(400),
    401: { $ref: '#/components/responses/Unauthorized' },
    406: jsonResponse('No recipient is a troupe inbox (`unknown_recipient`; Mailgun\'s "do not retry")', { $ref: '#/components/schemas/Error' }),
    ...errorResponses(413),
    503: jsonResponse('The webhook\'s secret is not configured (the message names the variable)', { $ref: '#/components/schemas/Error' }),
  };
  return [
    {
      method: 'post',
      path: `${WEBHOOK_PATH}/mailgun`,
      operation: {
        tags: [MAIL_WEBHOOKS],
        summary: 'Inbound mail from Mailgun',
        description: 'Mailgun\'s inbound-route form post, verified with MAILGUN_SIGNING_KEY (`timestamp`, `token`, `signature`; at most 15 minutes old). No API key.',
        security: PUBLIC,
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': { schema: { type: 'object', description: 'Mailgun\'s fields: recipient, sender, subject, body-plain, body-html, Message-Id, In-Reply-To, References, timestamp, token, signature, …' } },
            'application/x-www-form-urlencoded': { schema: { type: 'object' } },
          },
        },
        responses: { 200: delivered, ...refusals },
      },
    },
    {
      method: 'post',
      path: `${WEBHOOK_PATH}/generic`,
      operation: {
        tags: [MAIL_WEBHOOKS],
        summary: 'Inbound mail as JSON, signed with MAIL_WEBHOOK_SECRET',
        description: 'No API key: `X-Troupe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.rawBody">`, at most 15 minutes old.',
        security: PUBLIC,
        parameters: [{ ...headerParameter('X-Troupe-Signature', '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.rawBody" under MAIL_WEBHOOK_SECRET>`'), required: true }],
        requestBody: jsonRequestBody(GenericMail),
        responses: { 200: delivered, ...refusals },
      },
    },
  ];
}

export const publicRoutes = (components: SchemaComponents): DocumentedRoute[] => [...operationsRoutes(components), ...webRoutes(components), ...mailWebhookRoutes(components)];
