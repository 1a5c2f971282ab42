import { expect } from 'chai';
import { loadConfig } from '../../../scripts/config.js';
import type { NarrationRequest } from '../../../actors/llm/narration.js';
import { createNarrator } from '../../../actors/llm/narrator.js';
import { OFFLINE_NOTICE, offlineNarrator } from '../../../actors/llm/offline-narrator.js';

const request: NarrationRequest = {
  task: 'matchup_strategy',
  instructions: 'Explain how to play this matchup.',
  facts: { winRate: 0.58, matches: 212 },
  fallback: '- You win 58% of 212 matches.\n- Keep hands with early interaction.',
};

describe('offlineNarrator', () => {
  it("returns the caller's template text and says no model is configured", async () => {
    const narration = await offlineNarrator().narrate(request);
    expect(narration).to.deep.equal({
      text: `${request.fallback}\n\n${OFFLINE_NOTICE}`,
      provider: 'offline',
      model: null,
      offline: true,
    });
    expect(narration.text).to.contain('No language model is configured').and.contain('LLM_PROVIDER').and.contain('LARGE_LANGUAGE_MODEL');
  });

  it('is deterministic', async () => {
    const narrator = offlineNarrator();
    const first = await narrator.narrate(request);
    expect(await narrator.narrate({ ...request })).to.deep.equal(first);
    expect(await offlineNarrator().narrate(request)).to.deep.equal(first);
  });

  it('still says something with an empty fallback', async () => {
    expect((await offlineNarrator().narrate({ ...request, fallback: '  ' })).text).to.equal(OFFLINE_NOTICE);
  });
});

describe('createNarrator', () => {
  it('is offline without configuration', async () => {
    const narrator = await createNarrator(loadConfig({}).llm);
    expect(narrator).to.include({ provider: 'offline', model: null });
    expect((await narrator.narrate(request)).offline).to.equal(true);
  });

  it('narrates with the configured model otherwise', async () => {
    const narrator = await createNarrator(loadConfig({ LLM_PROVIDER: 'ollama', LARGE_LANGUAGE_MODEL: 'llama3.1' }).llm);
    expect(narrator).to.include({ provider: 'ollama', model: 'llama3.1' });
  });
});
