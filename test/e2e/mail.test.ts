/**
 * Mail end to end on real processes (`troupe mongo`, a gateway receiving SMTP, a worker): inboxes over
 * MCP and HTTP, local delivery and threading between inboxes, `wait_for_reply` woken by mail that
 * arrives over SMTP through the gateway process while the worker stores it, the webhooks with their
 * signatures, SMTP out to a test server on loopback (headers checked), the per-inbox send limit, the
 * resources, and search.
 */
import { createHmac } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'chai';
import { simpleParser, type ParsedMail } from 'mailparser';
import nodemailer from 'nodemailer';
import { SMTPServer } from 'smtp-server';
import { signGeneric } from '../../actors/mail/webhook-signatures.js';
import { pollUntil } from '../support/async.js';
import { deleteRedisPrefix } from '../support/redis-prefix.js';
import { freePort } from '../support/troupe-mongo-process.js';
import { createUserKey, spawnTroupe, startTroupeMongo, startWorkerAndGateway, troupeEnv, type TroupeProcess } from '../support/troupe-process.js';

type Structured = Record<string, unknown>;
const MAILGUN_KEY = 'test-mailgun-signing-key';
const GENERIC_SECRET = 'test-generic-webhook-secret';

describe('mail on a running troupe (MCP, HTTP, SMTP in and out, webhooks)', function () {
  this.timeout(180_000);
  const processes: TroupeProcess[] = [];
  const redisPrefix = `test-mail-${process.pid}-${Date.now().toString(36)}`;
  let base = '';
  let key = '';
  let otherKey = '';
  let smtpPort = 0;
  let mcp: Client;
  const outside: ParsedMail[] = [];
  let sink: SMTPServer;
  let sinkPort = 0;
  let env: NodeJS.ProcessEnv;

  const call = async (name: string, args: Structured, client = mcp): Promise<CallToolResult> => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const data = (result: CallToolResult): Structured => {
    expect(result.isError, JSON.stringify(result.content)).to.not.equal(true);
    return result.structuredContent as Structured;
  };
  const request = async (method: string, path: string, body?: unknown, apiKey = key) =>
    fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });

  before(async function () {
    sinkPort = await freePort();
    sink = new SMTPServer({
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      onData(stream, _session, callback) {
        simpleParser(stream).then((parsed) => {
          outside.push(parsed);
          callback();
        }, callback);
      },
    });
    await new Promise<void>((resolve) => sink.listen(sinkPort, '127.0.0.1', resolve));

    const [mongoPort, port] = await Promise.all([freePort(), freePort()]);
    smtpPort = await freePort();
    base = `http://127.0.0.1:${port}`;
    env = troupeEnv({
      MONGODB_URI: `mongodb://127.0.0.1:${mongoPort}/?replicaSet=rs0`,
      MONGODB_DB: 'mail_e2e',
      REDIS_PREFIX: redisPrefix,
      PORT: String(port),
      HOST: '127.0.0.1',
      MAIL_DOMAIN: 'agents.test',
      MAIL_TRANSPORT: 'smtp',
      SMTP_URL: `smtp://127.0.0.1:${sinkPort}`,
      SMTP_PORT: String(smtpPort),
      MAIL_SEND_PER_MINUTE: '8',
      MAIL_BLOCK_DOMAINS: 'blocked.test',
      MAILGUN_SIGNING_KEY: MAILGUN_KEY,
      MAIL_WEBHOOK_SECRET: GENERIC_SECRET,
    });
    await startTroupeMongo(mongoPort, env, processes);
    key = await createUserKey('mail-agent', env);
    otherKey = await createUserKey('mail-rival', env);
    await startWorkerAndGateway(env, base, processes);
    mcp = new Client({ name: 'mail-test', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  });

  after(async function () {
    await mcp?.close().catch(() => undefined);
    await Promise.all(processes.map((p) => p.kill()));
    await new Promise<void>((resolve) => (sink ? sink.close(() => resolve()) : resolve()));
    await deleteRedisPrefix(redisPrefix);
  });

  let support: Structured;
  let sales: Structured;

  it('create_inbox: an address on MAIL_DOMAIN; a taken username is an error, an invalid one says the pattern', async function () {
    support = data(await call('create_inbox', { name: 'Support Bot', username: 'support' }));
    expect(support).to.include({ email_address: 'support@agents.test', name: 'Support Bot' });
    expect(support.id).to.match(/^ibx_/);
    const taken = await call('create_inbox', { name: 'Again', username: 'support' });
    expect(taken.isError).to.equal(true);
    expect(JSON.stringify(taken.content)).to.include('already in use');
    const invalid = await call('create_inbox', { name: 'Bad', username: 'Not Valid!' });
    expect(invalid.isError).to.equal(true);
    expect(JSON.stringify(invalid.content)).to.match(/letters|digits/i);
    expect((await request('POST', '/inboxes', { username: 'support', name: 'Dup' })).status).to.equal(409);
    expect((await request('POST', '/inboxes', { username: '', name: 'Empty' })).status).to.equal(400);
    const created = await request('POST', '/inboxes', { username: 'sales', name: 'Sales' }, otherKey);
    expect(created.status).to.equal(200);
    sales = (await created.json()) as Structured;
    const mine = data(await call('list_inboxes', {}));
    expect((mine.inboxes as Structured[]).map((i) => i.email_address)).to.deep.equal(['support@agents.test']);
  });

  let threadId = '';

  it('send_email between troupe inboxes (another user\'s): Markdown to HTML, one thread each side; a reply threads by In-Reply-To', async function () {
    const sent = data(await call('send_email', { inbox_id: support.id, recipient: 'sales@agents.test', subject: 'Invoice 42', body: '**Hello** — see the [invoice](https://example.com/42).' }));
    expect(sent).to.include({ status: 'delivered', direction: 'outbound' });
    threadId = sent.thread_id as string;
    const theirs = await pollUntil(
      async () => {
        const threads = (await (await request('GET', `/inboxes/${sales.id as string}/threads`, undefined, otherKey)).json()) as { threads: Structured[] };
        return threads.threads[0];
      },
      { timeoutMs: 30_000, what: 'the copy in the sales inbox' },
    );
    const thread = (await (await request('GET', `/threads/${theirs.id as string}`, undefined, otherKey)).json()) as { messages: Structured[] };
    expect(thread.messages[0]).to.include({ direction: 'inbound', from: 'support@agents.test', subject: 'Invoice 42' });
    expect(thread.messages[0]!.content).to.include('**Hello**');
    expect(thread.messages[0]).to.not.have.property('html');
    // A client that renders HTML asks for the part.
    const withHtml = (await (await request('GET', `/threads/${theirs.id as string}?html=true`, undefined, otherKey)).json()) as { messages: Structured[] };
    expect(withHtml.messages[0]!.html).to.include('<strong>Hello</strong>').and.include('href="https://example.com/42"');
    expect((await request('GET', `/threads/${theirs.id as string}?html=yes`, undefined, otherKey)).status).to.equal(400);
    // Their reply lands in our thread (In-Reply-To), and wakes the waiting agent.
    const waiting = call('wait_for_reply', { thread_id: threadId, timeout_seconds: 60 });
    await new Promise((resolve) => setImmediate(resolve));
    const replied = await request('POST', `/inboxes/${sales.id as string}/messages`, { to: 'support@agents.test', body: 'Paid, thanks.\n\nOn Monday support wrote:\n> see the invoice', thread_id: theirs.id }, otherKey);
    expect(replied.status, await replied.clone().text()).to.equal(200);
    const woken = data(await waiting);
    expect(woken.timed_out).to.equal(false);
    expect(woken.message).to.deep.include({ thread_id: threadId, direction: 'inbound', from: 'sales@agents.test' });
    expect((woken.message as Structured).content_clean).to.equal('Paid, thanks.');
  });

  it('wait_for_reply is woken by mail arriving over SMTP through the gateway process; a reply already there returns at once; without one it times out, not an error', async function () {
    const followUp = data(await call('send_email', { inbox_id: support.id, recipient: 'customer@outside.test', subject: 'Re: Invoice 42', body: 'Any questions?', thread_id: threadId }));
    const waiting = call('wait_for_reply', { thread_id: threadId, timeout_seconds: 60 });
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    await transport.sendMail({ from: 'customer@outside.test', to: 'support@agents.test', subject: 'Re: Invoice 42', text: 'One more question.', inReplyTo: followUp.rfc_message_id as string });
    const woken = data(await waiting);
    expect(woken.message).to.deep.include({ from: 'customer@outside.test', thread_id: threadId });
    // Asked again before answering: the reply is already there.
    const again = data(await call('wait_for_reply', { thread_id: threadId, timeout_seconds: 60 }));
    expect((again.message as Structured).id).to.equal((woken.message as Structured).id);
    await call('send_email', { inbox_id: support.id, recipient: 'customer@outside.test', subject: 'Re: Invoice 42', body: 'Answered.', thread_id: threadId });
    const quiet = data(await call('wait_for_reply', { thread_id: threadId, timeout_seconds: 1 }));
    expect(quiet).to.include({ timed_out: true });
    const unknown = await call('wait_for_reply', { thread_id: 'th_000000000000000000000000', timeout_seconds: 1 });
    expect(unknown.isError).to.equal(true);
  });

  it('troupe smtp receives mail on its own, for the inboxes the workers keep', async function () {
    const port = await freePort();
    const listener = spawnTroupe(['smtp', '--port', String(port)], env);
    processes.push(listener);
    await pollUntil(
      () => {
        if (listener.exitStatus()) throw new Error(`troupe smtp exited: ${listener.stderr()}`);
        return listener.stdout().includes('troupe smtp is receiving mail');
      },
      { timeoutMs: 60_000, what: 'troupe smtp to listen' },
    );
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
    await transport.sendMail({ from: 'standalone@outside.test', to: 'support@agents.test', subject: 'Through troupe smtp', text: 'Hello.' });
    await pollUntil(async () => {
      const recent = (await (await request('GET', `/inboxes/${support.id as string}/threads`)).json()) as { threads: Structured[] };
      return recent.threads.some((t) => t.subject === 'Through troupe smtp');
    }, { timeoutMs: 30_000, what: 'the mail in the inbox' });
    await listener.kill();
  });

  it('the SMTP listener answers 550 for an unknown recipient', async function () {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });
    const refused = await transport.sendMail({ from: 'a@outside.test', to: 'nobody@agents.test', subject: 'x', text: 'x' }).then(
      () => undefined,
      (error: { responseCode?: number }) => error,
    );
    expect(refused?.responseCode).to.equal(550);
  });

  it('SMTP out: mail to an outside address goes to SMTP_URL with Message-ID, In-Reply-To and References; blocked domains are refused', async function () {
    const first = data(await call('send_email', { inbox_id: support.id, recipient: 'client@outside.test', subject: 'Hello', body: 'Hi *there*' }));
    expect(first.status).to.equal('sent');
    const reply = data(await call('send_email', { inbox_id: support.id, recipient: 'client@outside.test', subject: 'Re: Hello', body: 'Following up', thread_id: first.thread_id }));
    await pollUntil(() => outside.length >= 2, { timeoutMs: 30_000, what: 'two messages at the test SMTP server' });
    const [a, b] = outside.slice(-2);
    expect(a!.messageId).to.equal(first.rfc_message_id);
    expect(a!.html).to.include('<em>there</em>');
    expect(b!.inReplyTo).to.equal(first.rfc_message_id);
    expect(b!.references).to.include(first.rfc_message_id as string);
    expect(b!.messageId).to.equal(reply.rfc_message_id);
    const blocked = await call('send_email', { inbox_id: support.id, recipient: 'x@blocked.test', subject: 'x', body: 'x' });
    expect(blocked.isError).to.equal(true);
  });

  it('webhooks: Mailgun with a good signature delivers; bad and stale signatures are 401; generic JSON with troupe\'s signature', async function () {
    const form = (timestamp: number, token: string, signature: string) =>
      new URLSearchParams({ timestamp: String(timestamp), token, signature, recipient: 'support@agents.test', sender: 'hook@outside.test', subject: 'Via Mailgun', 'body-plain': 'Hello from the webhook' });
    const sign = (timestamp: number, token: string) => createHmac('sha256', MAILGUN_KEY).update(`${timestamp}${token}`).digest('hex');
    const now = Math.floor(Date.now() / 1000);
    const good = await fetch(`${base}/webhooks/mail/mailgun`, { method: 'POST', body: form(now, 'tok-1', sign(now, 'tok-1')) });
    expect(good.status, await good.clone().text()).to.equal(200);
    const bad = await fetch(`${base}/webhooks/mail/mailgun`, { method: 'POST', body: form(now, 'tok-2', 'f'.repeat(64)) });
    expect(bad.status).to.equal(401);
    const stale = await fetch(`${base}/webhooks/mail/mailgun`, { method: 'POST', body: form(now - 16 * 60, 'tok-3', sign(now - 16 * 60, 'tok-3')) });
    expect(stale.status).to.equal(401);
    const body = JSON.stringify({ from: 'json@outside.test', to: 'support@agents.test', subject: 'Via JSON', text: 'Hello from JSON' });
    const generic = await fetch(`${base}/webhooks/mail/generic`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-troupe-signature': signGeneric(body, GENERIC_SECRET, now) }, body });
    expect(generic.status, await generic.clone().text()).to.equal(200);
    const unsigned = await fetch(`${base}/webhooks/mail/generic`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(unsigned.status).to.equal(401);
    await pollUntil(async () => {
      const recent = (await (await request('GET', `/inboxes/${support.id as string}/threads`)).json()) as { threads: Structured[] };
      return recent.threads.some((t) => t.subject === 'Via Mailgun') && recent.threads.some((t) => t.subject === 'Via JSON');
    }, { timeoutMs: 30_000, what: 'the webhook mail in the inbox' });
  });

  it('search_email finds by words in subject and body, in one inbox or all; the resources show recent threads and a thread as Markdown', async function () {
    const found = data(await call('search_email', { query: 'invoice', inbox_id: support.id, limit: 5 }));
    const results = found.results as Structured[];
    expect(results.length).to.be.within(1, 5);
    expect(results.every((r) => r.thread_id === threadId)).to.equal(true);
    const limited = data(await call('search_email', { query: 'hello', limit: 1 }));
    expect(limited.results).to.have.length(1);
    const templates = await mcp.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).to.include.members(['email://inbox/{inbox_id}/recent', 'email://thread/{thread_id}']);
    const recent = await mcp.readResource({ uri: `email://inbox/${support.id as string}/recent` });
    const summaries = JSON.parse((recent.contents[0] as { text: string }).text) as Structured[];
    expect(summaries[0]).to.have.keys(['id', 'subject', 'last_message_at', 'message_count', 'participants']);
    const markdown = await mcp.readResource({ uri: `email://thread/${threadId}` });
    const text = (markdown.contents[0] as { text: string }).text;
    expect(text).to.match(/^# Invoice 42/);
    expect(text).to.include('---');
    const missing = await mcp.readResource({ uri: 'email://thread/th_000000000000000000000000' }).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(missing?.message).to.match(/not found/);
  });

  it('the per-inbox send limit answers 429 with Retry-After', async function () {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 10; i += 1) {
      const response = await request('POST', `/inboxes/${support.id as string}/messages`, { to: 'sales@agents.test', subject: `Burst ${i}`, body: 'x' });
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers.get('retry-after');
    }
    expect(statuses).to.include(429);
    expect(retryAfter).to.match(/^\d+$/);
  });
});
