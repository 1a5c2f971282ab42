import type { AIMessageChunk } from '@langchain/core/messages';
import { concat } from '@langchain/core/utils/stream';
import { ChatOpenAI } from '@langchain/openai';
import { expect } from 'chai';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../../support/fake-openai-server.js';

const rankingsTool = {
  type: 'function' as const,
  function: {
    name: 'get_format_meta_rankings',
    description: 'The top archetypes of a format by metagame share.',
    parameters: { type: 'object', properties: { format: { type: 'string' } }, required: ['format'] },
  },
};

describe('fake OpenAI server with the real ChatOpenAI', () => {
  let server: FakeOpenAiServer;
  let model: ChatOpenAI;

  beforeEach(async () => {
    server = await startFakeOpenAiServer();
    model = new ChatOpenAI({ model: 'fake-model', apiKey: 'not-needed', maxRetries: 0, configuration: { baseURL: server.url } });
  });

  afterEach(async () => {
    await server.close();
  });

  it('answers an invoke with the scripted text', async () => {
    server.enqueue({ text: 'Hello from the fake.' });
    const answer = await model.invoke('hi');
    expect(answer.content).to.equal('Hello from the fake.');
    expect(server.requests).to.have.length(1);
    expect(server.requests[0]!.stream).to.equal(false);
    expect(server.requests[0]!.body.model).to.equal('fake-model');
    expect(server.requests[0]!.messages).to.deep.equal([{ role: 'user', content: 'hi' }]);
  });

  it('returns scripted tool calls with parsed args and records the tools it was sent', async () => {
    server.enqueue({ toolCalls: [{ name: 'get_format_meta_rankings', args: { format: 'modern' }, id: 'call_1' }] });
    const answer = await model.bindTools([rankingsTool]).invoke('What is winning in Modern?');
    expect(answer.tool_calls).to.have.length(1);
    expect(answer.tool_calls![0]).to.include({ name: 'get_format_meta_rankings', id: 'call_1' });
    expect(answer.tool_calls![0]!.args).to.deep.equal({ format: 'modern' });
    expect(server.requests[0]!.tools).to.deep.equal([rankingsTool]);
  });

  it('streams text in several chunks', async () => {
    const text = 'Burn is the deck to beat this week.';
    server.enqueue({ text });
    const chunks: AIMessageChunk[] = [];
    for await (const chunk of await model.stream('hi')) chunks.push(chunk);
    expect(server.requests[0]!.stream).to.equal(true);
    expect(chunks.filter((c) => c.content !== '').length).to.be.greaterThan(1);
    expect(chunks.map((c) => c.content).join('')).to.equal(text);
  });

  it('streams a tool call that concatenated chunks reassemble', async () => {
    server.enqueue({ toolCalls: [{ name: 'get_format_meta_rankings', args: { format: 'pioneer' } }] });
    let whole: AIMessageChunk | undefined;
    for await (const chunk of await model.bindTools([rankingsTool]).stream('Pioneer?')) {
      whole = whole === undefined ? chunk : concat(whole, chunk);
    }
    expect(whole?.tool_calls).to.have.length(1);
    expect(whole!.tool_calls![0]!.name).to.equal('get_format_meta_rankings');
    expect(whole!.tool_calls![0]!.args).to.deep.equal({ format: 'pioneer' });
    expect(whole!.tool_calls![0]!.id).to.be.a('string').and.not.equal('');
  });

  it('makes invoke reject on a scripted 500', async () => {
    server.enqueue({ status: 500, error: 'scripted failure' });
    let failure: unknown;
    await model.invoke('hi').catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect(String((failure as Error).message)).to.contain('scripted failure');
  });

  it('answers 500 when the script is exhausted instead of hanging', async () => {
    let failure: unknown;
    await model.invoke('hi').catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect(String((failure as Error).message)).to.contain('script exhausted');
  });

  it('chooses replies with respondWith once the queue is empty', async () => {
    server.enqueue({ text: 'first' });
    server.respondWith((req) => ({ text: `echo ${req.messages.at(-1).content}` }));
    expect((await model.invoke('one')).content).to.equal('first');
    expect((await model.invoke('two')).content).to.equal('echo two');
  });

  it('keeps a held request in flight until it is released', async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    server.enqueue({ hold, then: { text: 'released' } });
    let settled = false;
    const answer = model.invoke('wait').finally(() => (settled = true));
    const arrived = await server.nthRequest(1);
    expect(arrived.messages.at(-1).content).to.equal('wait');
    expect(settled).to.equal(false);
    release();
    expect((await answer).content).to.equal('released');
  });
});
