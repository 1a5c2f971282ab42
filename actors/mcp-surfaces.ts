/**
 * What every kind shows over MCP (its name, tools, resources and prompts), from the kinds' contract
 * modules alone. `troupe mcp` lists troupe's tools from these without loading a single handler, and so
 * none of the MongoDB, Redis, LLM or mail code the handlers bring; the gateway lists the same from the
 * kinds it runs (a test holds the two lists equal).
 */
import type { KindMcpSurface } from './runtime/contract.js';
import * as conversation from './conversation/contract.js';
import * as documents from './documents/contract.js';
import * as echo from './echo/contract.js';
import * as game from './game/contract.js';
import * as mail from './mail/contract.js';
import * as meta from './meta/contract.js';
import * as scouting from './scouting/contract.js';

export const mcpSurfaces: KindMcpSurface[] = [
  { kind: 'echo', tools: echo.tools },
  { kind: 'meta', tools: meta.tools, resources: meta.resources, prompts: meta.prompts },
  { kind: game.GAME_KIND, tools: game.tools, resources: game.resources, prompts: game.prompts },
  { kind: conversation.CONVERSATION_KIND, tools: conversation.tools },
  { kind: documents.DOCUMENT_KIND, tools: documents.tools },
  { kind: scouting.SCOUTING_KIND, tools: scouting.tools, resources: scouting.resources },
  { kind: mail.INBOX_KIND, tools: mail.tools, resources: mail.resources },
];
