/**
 * Prometheus metrics on a registry of their own (one per TroupeMetrics, never prom-client's global
 * one, so tests and processes can hold several): HTTP requests and latency, queue depth per actor kind
 * (read from a provider on each scrape, so the gateway needs no worker code), turn latency (observed by
 * whoever sees turns end) and refusals by reason. Served as text by `GET /metrics`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ApiError, statusCode, toErrorResponse } from './error-response.js';
import type { GatewayState } from './state.js';

/** Jobs per state (waiting, active, delayed, ...) per actor kind, as BullMQ's `getJobCounts` gives them. */
export type QueueDepth = Record<string, Record<string, number>>;
export type QueueDepthProvider = () => Promise<QueueDepth>;

export interface TroupeMetricsOptions {
  /** Read on every scrape; its failure empties the gauge and counts an error instead of failing the scrape. */
  queueDepth?: QueueDepthProvider;
  /** Node process metrics (CPU, memory, event loop, GC). Default true. */
  processMetrics?: boolean;
}

const TURN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];

export class TroupeMetrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  private readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  private readonly turnDuration: Histogram<'kind' | 'outcome'>;
  private readonly rejections: Counter<'reason'>;

  constructor({ queueDepth, processMetrics = true }: TroupeMetricsOptions = {}) {
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
    this.turnDuration = new Histogram({
      name: 'troupe_turn_duration_seconds',
      help: 'Time from posting a message to its final reply event, by actor kind and outcome',
      labelNames: ['kind', 'outcome'],
      buckets: TURN_BUCKETS,
      registers,
    });
    this.rejections = new Counter({
      name: 'troupe_rejections_total',
      help: 'Requests refused, by reason (the error code: rate_limited, too_many_concurrent, bad_request, unauthorized, not_found, conflict, ...)',
      labelNames: ['reason'],
      registers,
    });
    // Both metrics below are collected on scrape, concurrently: they share one read per scrape.
    let inflight: Promise<QueueDepth | undefined> | undefined;
    const readQueueDepth = (): Promise<QueueDepth | undefined> => {
      inflight ??= (queueDepth ?? (async () => ({})))()
        .catch(() => undefined)
        .finally(() => {
          inflight = undefined;
        });
      return inflight;
    };
    new Gauge({
      name: 'troupe_queue_jobs',
      help: 'Jobs in the queues of each actor kind, by state (read on scrape)',
      labelNames: ['kind', 'state'],
      registers,
      async collect() {
        const depth = await readQueueDepth();
        this.reset();
        for (const [kind, states] of Object.entries(depth ?? {})) {
          for (const [state, count] of Object.entries(states)) this.set({ kind, state }, count);
        }
      },
    });
    new Counter({
      name: 'troupe_queue_depth_errors_total',
      help: 'Scrapes on which the queue depth could not be read (the gauge is then empty)',
      registers,
      async collect() {
        if ((await readQueueDepth()) === undefined) this.inc();
      },
    });
    if (processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'troupe_' });
  }

  /** One turn finished `seconds` after its message was posted. */
  observeTurn(kind: string, seconds: number, outcome: string = 'reply'): void {
    this.turnDuration.observe({ kind, outcome }, seconds);
  }

  /** A refusal the HTTP middleware does not see (e.g. an MCP tool call answered with a tool error). */
  recordRejection(reason: string): void {
    this.rejections.inc({ reason });
  }

  /** Counts and times every request below it; 4xx answers also count as rejections by error code. */
  httpMiddleware(): Middleware<GatewayState> {
    return async (ctx, next) => {
      const started = performance.now();
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
