/**
 * Prometheus metrics on a registry of their own (one per TroupeMetrics, never prom-client's global
 * one, so tests and processes can hold several). Gateways record HTTP requests, refusals, SSE streams
 * and the latency from posting a message to its reply; workers record turns and commits through the
 * runtime's RuntimeObserver, which this implements; queue metrics are read on scrape. `troupe start`
 * shares one instance between its gateway and workers. Served as text by `GET /metrics`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CommitResult, RuntimeObserver } from '../actors/runtime/observer.js';
import { ApiError, statusCode, toErrorResponse } from './error-response.js';
import { observeGarbageCollection } from './gc-metrics.js';
import { registerQueueMetrics, type QueueStatsReader } from './queue-metrics.js';
import type { EventStreamObserver } from './sse.js';
import type { GatewayState } from './state.js';

export interface TroupeMetricsOptions {
  /** The queues to read on every scrape (gateways); see also `observeQueues`. */
  queues?: QueueStatsReader;
  /** Node process metrics (CPU, memory, event loop, GC). Default true. */
  processMetrics?: boolean;
}

/** Which of a user's limits refused a message (gateway/limits.ts). */
export type LimitName = 'rate' | 'concurrency';

/** From a millisecond echo turn to a long LLM turn (turn timeouts default to 10 minutes). */
const TURN_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const LAG_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export class TroupeMetrics implements RuntimeObserver {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly rejections: Counter<'reason'>;
  private readonly limitRejections: Counter<'kind' | 'limit'>;
  private readonly replyDuration: Histogram<'kind' | 'outcome'>;
  private readonly turnDuration: Histogram<'kind' | 'outcome'>;
  private readonly commitDuration: Histogram<'kind' | 'result'>;
  private readonly sseOpen: Gauge;
  private readonly replyLag: Histogram;
  private queuesObserved = false;

  constructor({ queues, processMetrics = true }: TroupeMetricsOptions = {}) {
    const registers = [this.registry];
    this.httpRequests = new Counter({
      name: 'troupe_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.httpDuration = new Histogram({
      name: 'troupe_http_request_duration_seconds',
      help: 'Time to answer an HTTP request (for streams: until the handler returned), by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.rejections = new Counter({
      name: 'troupe_rejections_total',
      help: 'Requests refused, by reason (the error code: rate_limited, too_many_concurrent, bad_request, unauthorized, not_found, conflict, ...)',
      labelNames: ['reason'],
      registers,
    });
    this.limitRejections = new Counter({
      name: 'troupe_limit_rejections_total',
      help: 'Messages refused by a user limit before anything was enqueued (HTTP, MCP and batches), by actor kind and limit (rate or concurrency)',
      labelNames: ['kind', 'limit'],
      registers,
    });
    this.replyDuration = new Histogram({
      name: 'troupe_message_reply_duration_seconds',
      help:
        'Time from a gateway posting a message on POST /actors/:kind/:id/messages or POST /services/:kind/messages to reading its final reply event ' +
        '(queue wait, turn, commit and reply delivery), by kind and outcome (reply or error); other routes and MCP are not included, see troupe_turn_duration_seconds',
      labelNames: ['kind', 'outcome'],
      buckets: TURN_BUCKETS,
      registers,
    });
    this.turnDuration = new Histogram({
      name: 'troupe_turn_duration_seconds',
      help:
        'Time a worker ran one turn of a stateful actor or one service request, whatever the message came from (HTTP, MCP, batch, schedule, another actor), ' +
        'excluding queue wait and commit, by kind and outcome (reply, or the error code: turn_failed, bad_request, cancelled, ...)',
      labelNames: ['kind', 'outcome'],
      buckets: TURN_BUCKETS,
      registers,
    });
    this.commitDuration = new Histogram({
      name: 'troupe_mongo_commit_duration_seconds',
      help:
        "Time a drain waited for its turn's conditional commit to MongoDB (group commit's batching and bulk write included), by actor kind and result " +
        '(applied; conflict: a newer drain held the fence or the cached copy was stale, nothing applied; failed: the write threw)',
      labelNames: ['kind', 'result'],
      buckets: COMMIT_BUCKETS,
      registers,
    });
    this.sseOpen = new Gauge({
      name: 'troupe_sse_connections_open',
      help: 'Server-Sent Event streams open now (reply, batch and feed streams; MCP sessions are not included)',
      registers,
    });
    this.replyLag = new Histogram({
      name: 'troupe_reply_stream_lag_seconds',
      help:
        'Time from an event being appended to a Redis stream (the time in its entry id, Redis clock) to the gateway writing it to an SSE client; ' +
        'events appended before the request arrived (history replayed on a resume or a late follow) are not counted',
      buckets: LAG_BUCKETS,
      registers,
    });
    if (queues) this.observeQueues(queues);
    if (processMetrics) {
      collectDefaultMetrics({ register: this.registry, prefix: 'troupe_' });
      observeGarbageCollection(this.registry);
    }
  }

  /** Reads `queues` on every scrape for the queue metrics; a process attaches at most one reader. */
  observeQueues(queues: QueueStatsReader): void {
    if (this.queuesObserved) throw new Error('TroupeMetrics: the queues are observed already');
    this.queuesObserved = true;
    registerQueueMetrics(this.registry, queues);
  }

  turnFinished(kind: string, outcome: string, seconds: number): void {
    this.turnDuration.observe({ kind, outcome }, seconds);
  }

  commitFinished(kind: string, result: CommitResult, seconds: number): void {
    this.commitDuration.observe({ kind, result }, seconds);
  }

  /** A message posted by the actor routes got its final reply event `seconds` after it was posted. */
  observeReply(kind: string, seconds: number, outcome: 'reply' | 'error'): void {
    this.replyDuration.observe({ kind, outcome }, seconds);
  }

  /** A refusal the HTTP middleware does not see (e.g. an MCP tool call answered with a tool error). */
  recordRejection(reason: string): void {
    this.rejections.inc({ reason });
  }

  recordLimitRejection(kind: string, limit: LimitName): void {
    this.limitRejections.inc({ kind, limit });
  }

  /** Counts and times every request below it; 4xx answers also count as rejections by error code. */
  httpMiddleware(): Middleware<GatewayState> {
    return async (ctx, next) => {
      const started = performance.now();
      ctx.state.eventStreams = new RequestEventStreams(this.sseOpen, this.replyLag, Date.now());
      let status: number;
      let reason: string | undefined;
      try {
        await next();
        status = ctx.status;
        if (status >= 400 && status < 500) reason = errorCodeOf(ctx.body) ?? statusCode(status);
      } catch (thrown) {
        // errorResponse (further out) renders it; the same mapping tells what the client will see.
        const response = toErrorResponse(thrown);
        status = response.status;
        if (status < 500) reason = response.body.error.code;
        throw thrown;
      } finally {
        const labels = { method: ctx.method, route: routePattern(ctx), status: String(status!) };
        this.httpRequests.inc(labels);
        this.httpDuration.observe(labels, (performance.now() - started) / 1000);
        if (reason !== undefined) this.rejections.inc({ reason });
      }
    };
  }

  /** The Prometheus text exposition. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The SSE streams of one request: counted while open, and each event's lag measured from its append. */
class RequestEventStreams implements EventStreamObserver {
  constructor(
    private readonly open: Gauge,
    private readonly lag: Histogram,
    private readonly receivedAtMs: number,
  ) {}

  opened(): void {
    this.open.inc();
  }

  closed(): void {
    this.open.dec();
  }

  written(appendedAtMs: number): void {
    // Appended before the request arrived: history the client asked for, not delivery lag.
    if (appendedAtMs < this.receivedAtMs) return;
    this.lag.observe(Math.max(0, Date.now() - appendedAtMs) / 1000);
  }
}

interface RouterLayer {
  path: unknown;
  methods: string[];
}

/**
 * The pattern of the route that matched (e.g. `/actors/:kind/:id/messages`), or `unmatched`: raw paths
 * would make one series per URL. Read from @koa/router's `ctx.matched` rather than `_matchedRoute`,
 * which points at a `use` middleware's layer when that middleware (the API-key check) answers.
 */
function routePattern(ctx: object): string {
  const matched = (ctx as { matched?: RouterLayer[]; method: string }).matched;
  const method = (ctx as { method: string }).method;
  const route = [...(matched ?? [])].reverse().find((layer) => layer.methods.includes(method));
  return route === undefined ? 'unmatched' : String(route.path);
}

function errorCodeOf(body: unknown): string | undefined {
  const code = (body as { error?: { code?: unknown } } | null | undefined)?.error?.code;
  return typeof code === 'string' ? code : undefined;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * GET /metrics. Open by default (like most exporters, meant for a private network); with `token`
 * (METRICS_TOKEN) it wants `Authorization: Bearer TOKEN`.
 */
export function createMetricsRouter(metrics: TroupeMetrics, { token }: { token?: string } = {}): Router<GatewayState> {
  const router = new Router<GatewayState>();
  const expected = token === undefined ? undefined : digest(token);
  router.get('/metrics', async (ctx) => {
    if (expected) {
      const sent = /^Bearer[ \t]+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
      // Compare digests: equal lengths for timingSafeEqual, and no timing hint about the token.
      if (sent === undefined || !timingSafeEqual(digest(sent), expected)) {
        throw new ApiError(401, 'unauthorized', 'GET /metrics needs Authorization: Bearer METRICS_TOKEN', {}, {
          'WWW-Authenticate': 'Bearer realm="troupe-metrics"',
        });
      }
    }
    const { contentType, body } = await metrics.render();
    ctx.type = contentType;
    ctx.body = body;
  });
  return router;
}
