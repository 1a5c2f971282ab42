import { createChatModel } from './chat-model.js';
import type { LlmConfig } from './config.js';
import { modelNarrator } from './model-narrator.js';
import type { Narrator } from './narration.js';
import { offlineNarrator } from './offline-narrator.js';

/** The narrator the configuration names: a model narrator, or the offline one for `offline`. */
export function createNarrator(config: LlmConfig): Narrator {
  if (config.provider === 'offline') return offlineNarrator();
  return modelNarrator(createChatModel(config), config);
}
