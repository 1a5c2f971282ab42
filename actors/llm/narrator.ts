import { createChatModel } from './chat-model.js';
import type { LlmConfig } from './config.js';
import type { Narrator } from './narration.js';
import { offlineNarrator } from './offline-narrator.js';

/**
 * The narrator the configuration names: a model narrator, or the offline one for `offline`. The model
 * narrator (and LangChain under it) is imported only when a model is configured.
 */
export async function createNarrator(config: LlmConfig): Promise<Narrator> {
  if (config.provider === 'offline') return offlineNarrator();
  const { modelNarrator } = await import('./model-narrator.js');
  return modelNarrator(await createChatModel(config), config);
}
