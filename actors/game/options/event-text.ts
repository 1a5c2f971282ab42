/** One line of narration per engine event ("Player 2 played Militia"), for logs and the CLI. */
import type { GameEvent } from '../engine/events.js';
import { playerLabel } from '../engine/step.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export function describeEvent(e: GameEvent): string {
  switch (e.type) {
    case 'turn_start': return `Turn ${e.turn}: ${playerLabel(e.player)}`;
    case 'play': return `${playerLabel(e.player)} played ${e.card}`;
    case 'buy': return `${playerLabel(e.player)} bought ${e.card}`;
    case 'gain': return `${playerLabel(e.player)} gained ${e.card}${e.to === 'discard' ? '' : e.to === 'hand' ? ' to hand' : ' onto their deck'}`;
    case 'trash': return `${playerLabel(e.player)} trashed ${e.card}`;
    case 'discard': return `${playerLabel(e.player)} discarded ${e.card}`;
    case 'deck_to_discard': return `${playerLabel(e.player)} put their deck (${plural(e.count, 'card')}) into their discard pile`;
    case 'draw': return `${playerLabel(e.player)} drew ${plural(e.count, 'card')}`;
    case 'reveal': return `${playerLabel(e.player)} revealed ${e.cards.length > 0 ? e.cards.join(', ') : 'nothing'}`;
    case 'topdeck': return `${playerLabel(e.player)} put ${e.card ?? 'a card'} onto their deck`;
    case 'set_aside': return `${playerLabel(e.player)} set aside ${e.card}`;
    case 'shuffle': return `${playerLabel(e.player)} shuffled`;
    case 'moat': return `${playerLabel(e.player)} ${e.revealed ? 'revealed' : 'did not reveal'} Moat`;
    case 'game_over': return `Game over (${e.result.reason.replace('_', ' ')}): ${e.result.winners.map(playerLabel).join(' and ')} ${e.result.winners.length === 1 ? 'wins' : 'share the win'}`;
  }
}
