/**
 * The shared presentation layer: numbered options for every situation, command text both ways, the
 * spec's pendingEffect block. CLI, MCP and HTTP all render from here so option N means the same move
 * everywhere.
 */
export { optionsFor, validMoves, limitOptions, OPTION_DISPLAY_LIMIT, type MoveOption } from './option-list.js';
export { parseCommand, type ParseResult } from './parse-command.js';
export { applyCommand, type CommandResult, type CommandFailure } from './apply-command.js';
export { formatCommand, parseMoveText, splitCommands, groupCommands, selectionNumber, type CommandError, type CommandErrorCode, type CommandGroup } from './commands.js';
export { describePendingEffect, gameOverInfo, waitingFor, type PendingEffectDescription, type GameOverInfo } from './pending-effect.js';
export { decisionPrompt, describeDecisionMove, describeTurnMove } from './descriptions.js';
export { describeEvent } from './event-text.js';
export { responseFields, type ResponseFields } from './response-fields.js';
