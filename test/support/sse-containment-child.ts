/**
 * Child process of the koa-sse-stream containment test: serves SSE streams through gateway/sse.ts, lets
 * clients finish some and abandon others, closes its HTTP server and then simply returns. The parent
 * asserts that the process exits on its own (no timer left behind: the library's middleware would leave
 * its ping interval) and printed nothing but the one JSON line below (the library's console.log and
 * console.error, and Koa's "premature close" reports, would show up on stdout/stderr).
 */
import Router from '@koa/router';
import { pino } from 'pino';
import { createGatewayApp } from '../../gateway/app.js';
import { startHttpServer } from '../../gateway/http-server.js';
import { streamEvents, type StreamEnd } from '../../gateway/sse.js';
import type { GatewayState } from '../../gateway/state.js';
import type { ReplyEvent } from '../../queues/reply-stream.js';
import { openSse, readEvents } from './sse-client.js';

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

const timersBefore = timers();

const ends: Array<Promise<StreamEnd>> = [];
const router = new Router<GatewayState>();
router.get('/finite', async (ctx) => {
  async function* events(): AsyncGenerator<ReplyEvent> {
    for (let i = 1; i <= 3; i++) yield { id: `${i}-0`, event: 'token', data: { i } };
    yield { id: '4-0', event: 'done', data: {} };
  }
  ends.push((await streamEvents(ctx, events(), { heartbeatMs: 5 })).finished);
});
router.get('/endless', async (ctx) => {
  const handle = await streamEvents(
    ctx,
    async function* (signal): AsyncGenerator<ReplyEvent> {
      yield { id: '1-0', event: 'token', data: { i: 1 } };
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    },
    { heartbeatMs: 5 },
  );
  ends.push(handle.finished);
});

const app = createGatewayApp({ logger: pino({ level: 'silent' }), readinessChecks: {} });
app.use(router.routes());
const server = await startHttpServer(app, { host: '127.0.0.1', port: 0 });

const finished = await Promise.all([1, 2, 3].map(async () => (await readEvents(await openSse(`${server.url}/finite`))).length));
for (let i = 0; i < 3; i++) {
  const connection = await openSse(`${server.url}/endless`);
  for await (const item of connection.items) if (item.kind === 'event') break;
  connection.close();
}
const endings = await Promise.all(ends);
await server.close();
const timersAfter = timers();

process.stdout.write(`${JSON.stringify({ timersBefore, timersAfter, finished, endings })}\n`);
// No process.exit: the parent checks that nothing keeps the event loop alive.
