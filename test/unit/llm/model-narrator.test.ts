import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { expect } from 'chai';
import type { ModelLlmConfig } from '../../../actors/llm/config.js';
import { modelNarrator, NARRATOR_SYSTEM_PROMPT } from '../../../actors/llm/model-narrator.js';
import { NarrationError, type NarrationRequest } from '../../../actors/llm/narration.js';

/** A chat model that records what it was sent and answers with `reply` (which may throw or never settle). */
class ScriptedChatModel extends BaseChatModel {
  readonly calls: BaseMessage[][] = [];

  constructor(private readonly reply: () => Promise<AIMessage>) {
    super({});
  }

  _llmType(): string {
    return 'scripted';
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push(messages);
    const message = await this.reply();
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}

const openai: ModelLlmConfig = {
  provider: 'openai',
  model: 'gpt-test',
  apiKey: 'sk-live-secret-123456',
  baseUrl: undefined,
  temperature: undefined,
  timeoutMs: 5000,
};

const request: NarrationRequest = {
  task: 'optimize_sideboard',
  instructions: 'Explain why these sideboard changes help against the top archetypes.',
  facts: { add: [{ card: 'Rest in Peace', copies: 2, adoption: 0.64 }], remove: [{ card: 'Negate', copies: 1 }] },
  fallback: 'Add 2 Rest in Peace; cut 1 Negate.',
};

async function narrationError(promise: Promise<unknown>): Promise<NarrationError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(NarrationError);
    return error as NarrationError;
  }
  throw new Error('narration succeeded');
}

function failingWith(error: unknown): ScriptedChatModel {
  return new ScriptedChatModel(async () => {
    throw error;
  });
}

describe('modelNarrator', () => {
  it('sends the coach prompt, the instructions and the facts, and returns the model text', async () => {
    const model = new ScriptedChatModel(async () => new AIMessage('  Bring in **Rest in Peace**.  '));
    const narrator = modelNarrator(model, openai);
    expect(narrator).to.include({ provider: 'openai', model: 'gpt-test' });

    const narration = await narrator.narrate(request);

    expect(narration).to.deep.equal({ text: 'Bring in **Rest in Peace**.', provider: 'openai', model: 'gpt-test', offline: false });
    expect(model.calls).to.have.length(1);
    const [system, human] = model.calls[0]!;
    expect(system!.type).to.equal('system');
    expect(system!.content).to.equal(NARRATOR_SYSTEM_PROMPT);
    expect(NARRATOR_SYSTEM_PROMPT).to.match(/Magic: The Gathering coach/).and.match(/ONLY the facts/).and.match(/Do not suggest/);
    expect(human!.type).to.equal('human');
    const prompt = human!.content as string;
    expect(prompt).to.contain('optimize_sideboard');
    expect(prompt).to.contain(request.instructions);
    expect(prompt).to.contain(JSON.stringify(request.facts, null, 2));
    expect(prompt).not.to.contain(request.fallback);
  });

  it('joins the text parts of a multi-part reply, skipping reasoning', async () => {
    const reply = new AIMessage({
      content: [
        { type: 'thinking', thinking: 'The facts say 64% adoption.' },
        { type: 'text', text: 'Rest in Peace ' },
        { type: 'text', text: 'beats graveyard decks.' },
      ],
    });
    const narration = await modelNarrator(new ScriptedChatModel(async () => reply), openai).narrate(request);
    expect(narration.text).to.equal('Rest in Peace beats graveyard decks.');
  });

  it("works with @langchain/core's FakeListChatModel", async () => {
    const model = new FakeListChatModel({ responses: ['First answer.', 'Second answer.'] });
    const narrator = modelNarrator(model, openai);
    expect((await narrator.narrate(request)).text).to.equal('First answer.');
    expect((await narrator.narrate(request)).text).to.equal('Second answer.');
  });

  it('turns a provider error into a NarrationError without the API key', async () => {
    const providerError = Object.assign(new Error(`401 Incorrect API key provided: ${openai.apiKey}`), { status: 401 });
    const error = await narrationError(modelNarrator(failingWith(providerError), openai).narrate(request));
    expect(error).to.include({ failure: 'provider', provider: 'openai', model: 'gpt-test', status: 401 });
    expect(error.message).to.contain('openai gpt-test').and.contain('check OPENAI_API_KEY');
    expect(error.message).not.to.contain('secret-123456');
  });

  it('masks key-shaped text the provider echoes', async () => {
    const error = await narrationError(
      modelNarrator(failingWith(new Error('bad key sk-ant-api03-abcdefghij')), { ...openai, provider: 'anthropic', apiKey: 'other' }).narrate(request),
    );
    expect(error.message).to.contain('sk-ant-***').and.not.contain('abcdefghij');
  });

  it('names OLLAMA_BASE_URL when Ollama cannot be reached', async () => {
    const refused = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:11434'), { code: 'ECONNREFUSED' }) });
    const ollama: ModelLlmConfig = { provider: 'ollama', model: 'llama3.1', baseUrl: 'http://127.0.0.1:11434', temperature: undefined, timeoutMs: 5000 };
    const error = await narrationError(modelNarrator(failingWith(refused), ollama).narrate(request));
    expect(error).to.include({ failure: 'provider', provider: 'ollama', status: undefined });
    expect(error.message).to.contain('ECONNREFUSED').and.contain('OLLAMA_BASE_URL (http://127.0.0.1:11434)');
  });

  it('names LARGE_LANGUAGE_MODEL when the model does not exist', async () => {
    const notFound = Object.assign(new Error('model "nope" not found'), { status: 404 });
    const error = await narrationError(modelNarrator(failingWith(notFound), { ...openai, model: 'nope' }).narrate(request));
    expect(error.message).to.contain('check LARGE_LANGUAGE_MODEL');
  });

  it('gives up after LLM_TIMEOUT_MS', async () => {
    const silent = new ScriptedChatModel(() => new Promise<AIMessage>(() => {}));
    const error = await narrationError(modelNarrator(silent, { ...openai, timeoutMs: 20 }).narrate(request));
    expect(error.failure).to.equal('timeout');
    expect(error.message).to.contain('20 ms').and.contain('LLM_TIMEOUT_MS');
  });

  it('stops when the caller aborts', async () => {
    const silent = new ScriptedChatModel(() => new Promise<AIMessage>(() => {}));
    const controller = new AbortController();
    const narration = modelNarrator(silent, openai).narrate(request, controller.signal);
    controller.abort();
    expect((await narrationError(narration)).failure).to.equal('aborted');
  });

  it('rejects an empty answer', async () => {
    const error = await narrationError(modelNarrator(new ScriptedChatModel(async () => new AIMessage('   ')), openai).narrate(request));
    expect(error.failure).to.equal('empty');
  });
});
