/** The admin routes of gateway/admin-queues.ts: the queue dashboard and its browser session. */
import { DASHBOARD_PATH, SESSION_PATH } from '../admin-queues.js';
import { ADMIN_SESSION_COOKIE } from '../admin-session.js';
import { errorResponses } from './components.js';
import type { DocumentedRoute, Operation, SecurityRequirement } from './openapi-types.js';

const ADMIN = 'Admin';
const ADMINS_ONLY = 'For users with the admin role; anyone else gets the plain 404 of an unknown path.';
const API_KEY_OR_SESSION: SecurityRequirement[] = [{ bearerApiKey: [] }, { headerApiKey: [] }, { adminSession: [] }];

export const adminSessionScheme = {
  type: 'apiKey',
  in: 'cookie',
  name: ADMIN_SESSION_COOKIE,
  description: 'The admin pages\' browser session, from POST /admin/session (30 minutes; sent only to /admin).',
};

const session = (summary: string, description: string, security: Operation['security']): Operation => ({
  tags: [ADMIN],
  summary,
  description: `${description} ${ADMINS_ONLY}`,
  security,
  responses: { 204: { description: 'Done (the cookie is set or cleared)' }, ...errorResponses(400, 403, 404) },
});

export function adminRoutes(): DocumentedRoute[] {
  return [
    {
      method: 'get',
      path: DASHBOARD_PATH,
      operation: {
        tags: [ADMIN],
        summary: 'The queue dashboard (bull-board)',
        description: `Every drain, service and schedule queue. The dashboard's files and its JSON API live below this path; they are bull-board's and not described here. ${ADMINS_ONLY}`,
        security: API_KEY_OR_SESSION,
        responses: { 200: { description: 'The dashboard', content: { 'text/html': { schema: { type: 'string' } } } }, ...errorResponses(404) },
      },
    },
    {
      method: 'post',
      path: SESSION_PATH,
      operation: session('Start an admin browser session', 'Trades the API key (no body) for a session cookie, so a browser can open the dashboard.', [{ bearerApiKey: [] }, { headerApiKey: [] }]),
    },
    { method: 'delete', path: SESSION_PATH, operation: session('End the admin browser session', 'Clears the cookie and ends the session.', API_KEY_OR_SESSION) },
  ];
}
