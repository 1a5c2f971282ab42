/**
 * A scripted OpenAI chat-completions server on loopback, so tests exercise the real provider code path
 * (`LLM_PROVIDER=openai-compatible`, `ChatOpenAI` and the OpenAI SDK over HTTP, tool calls, streaming)
 * without network access. It is a real HTTP server, so troupe processes spawned by a test can use it:
 * `OPENAI_BASE_URL=<server.url> LARGE_LANGUAGE_MODEL=fake-model`.
 *
 * Each POST /v1/chat/completions takes the next enqueued reply, or asks `respondWith`; with neither it
 * answers 500 (a script that ran out fails loudly rather than hanging).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ScriptedReply =
  | { text: string }
  | { toolCalls: Array<{ name: string; args: Record<string, unknown>; id?: string }>; text?: string }
  | { status: number; error: string }
  | { hold: Promise<void>; then: ScriptedReply };

export interface RecordedRequest {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  stream: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  messages: any[];
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tools: any[] | undefined;
  receivedAt: number;
}

export interface FakeOpenAiServer {
  /** The base URL to configure, e.g. `http://127.0.0.1:PORT/v1`. */
  url: string;
  /** Every chat-completions request, in arrival order. */
  requests: RecordedRequest[];
  /** Replies are consumed in order, one per chat-completions request. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Chooses the reply from the request when the enqueued replies are used up. */
  respondWith(fn: (req: RecordedRequest) => ScriptedReply): void;
  /** Resolves when the n-th request (1-based, counting all requests so far) has arrived. */
  nthRequest(n: number): Promise<RecordedRequest>;
  /** Closes the server and destroys open sockets. */
  close(): Promise<void>;
}

type Answer = Exclude<ScriptedReply, { hold: Promise<void> }>;
type ToolCall = { id: string; name: string; arguments: string };

const MODEL = 'fake-model';

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sendError(res: ServerResponse, status: number, message: string): void {
  const type = status >= 500 ? 'server_error' : 'invalid_request_error';
  sendJson(res, status, { error: { message, type, code: null } });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Words with their trailing whitespace: concatenated they give `text` back. */
function pieces(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
}

export async function startFakeOpenAiServer(): Promise<FakeOpenAiServer> {
  const requests: RecordedRequest[] = [];
  const queue: ScriptedReply[] = [];
  const waiters: Array<{ n: number; resolve: (req: RecordedRequest) => void }> = [];
  let responder: ((req: RecordedRequest) => ScriptedReply) | undefined;
  let nextId = 0;

  function record(req: RecordedRequest): void {
    requests.push(req);
    for (const waiter of waiters.filter((w) => w.n <= requests.length)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(requests[waiter.n - 1]!);
    }
  }

  function answerJson(res: ServerResponse, model: string, reply: Answer & { text?: string }, toolCalls: ToolCall[]): void {
    const content = reply.text ?? null;
    sendJson(res, 200, {
      id: `chatcmpl-${++nextId}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content,
            ...(toolCalls.length > 0
              ? { tool_calls: toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
              : {}),
          },
          logprobs: null,
          finish_reason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  }

  function answerStream(res: ServerResponse, recorded: RecordedRequest, reply: Answer & { text?: string }, toolCalls: ToolCall[]): void {
    const id = `chatcmpl-${++nextId}`;
    const created = Math.floor(Date.now() / 1000);
    const model = String(recorded.body.model ?? MODEL);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (choices: unknown[], extra: object = {}): void => {
      res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`);
    };
    const delta = (d: object, finish: string | null = null): void => send([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
    delta({ role: 'assistant' });
    for (const piece of pieces(reply.text ?? '')) delta({ content: piece });
    toolCalls.forEach((call, index) => {
      const half = Math.ceil(call.arguments.length / 2);
      delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments.slice(0, half) } }] });
      delta({ tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }] });
    });
    delta({}, toolCalls.length > 0 ? 'tool_calls' : 'stop');
    if (recorded.body.stream_options?.include_usage) send([], { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
    res.end('data: [DONE]\n\n');
  }

  async function chatCompletion(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let body;
    try {
      body = JSON.parse(await readBody(req));
    } catch {
      return sendError(res, 400, 'request body is not JSON');
    }
    const recorded: RecordedRequest = {
      body,
      stream: body.stream === true,
      messages: Array.isArray(body.messages) ? body.messages : [],
      tools: Array.isArray(body.tools) ? body.tools : undefined,
      receivedAt: Date.now(),
    };
    record(recorded);
    let reply = queue.shift() ?? responder?.(recorded);
    while (reply !== undefined && 'hold' in reply) {
      await reply.hold;
      reply = reply.then;
    }
    if (res.destroyed) return;
    if (reply === undefined) return sendError(res, 500, `fake OpenAI server: script exhausted at request ${requests.length}`);
    if ('status' in reply) return sendError(res, reply.status, reply.error);
    const toolCalls = ('toolCalls' in reply ? reply.toolCalls : []).map((c) => ({
      id: c.id ?? `call_${++nextId}`,
      name: c.name,
      arguments: JSON.stringify(c.args),
    }));
    if (recorded.stream) answerStream(res, recorded, reply, toolCalls);
    else answerJson(res, String(body.model ?? MODEL), reply, toolCalls);
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'POST' && path === '/v1/chat/completions') {
      chatCompletion(req, res).catch((error: unknown) => {
        if (!res.headersSent) sendError(res, 500, `fake OpenAI server: ${String(error)}`);
        else res.destroy();
      });
    } else if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, { object: 'list', data: [{ id: MODEL, object: 'model', created: 0, owned_by: 'troupe-tests' }] });
    } else {
      sendError(res, 404, `fake OpenAI server: no route ${req.method} ${path}`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    respondWith: (fn) => void (responder = fn),
    nthRequest: (n) =>
      !Number.isInteger(n) || n < 1
        ? Promise.reject(new RangeError(`nthRequest counts from 1, got ${n}`))
        : n <= requests.length ? Promise.resolve(requests[n - 1]!) : new Promise((resolve) => waiters.push({ n, resolve })),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
