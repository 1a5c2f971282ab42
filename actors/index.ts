/**
 * The actor kinds troupe hosts. The gateway mounts their contracts and workers run their handlers;
 * adding a kind means adding its folder under actors/ and listing it here.
 */
import type { AnyKind } from './runtime/contract.js';
import { echoKind } from './echo/kind.js';
import { gameKind } from './game/kind.js';
import { gameLobbyKind } from './game/lobby.js';
import { metaKind } from './meta/kind.js';
import { conversationKind, conversationListKind } from './conversation/kind.js';
import { documentKind, documentListKind, searchIndexKind } from './documents/kind.js';
import { inboxKind, mailKind } from './mail/kind.js';
import { scoutingKind, scoutingRecordsKind } from './scouting/kind.js';

export const kinds: AnyKind[] = [
  echoKind,
  metaKind,
  gameKind,
  gameLobbyKind,
  conversationKind as AnyKind,
  conversationListKind,
  documentKind as AnyKind,
  documentListKind,
  searchIndexKind as AnyKind,
  scoutingKind as AnyKind,
  scoutingRecordsKind,
  inboxKind as AnyKind,
  mailKind,
];

/** The kinds named in `--kinds a,b` (all when absent); unknown names are an error that lists the valid ones. */
export function selectKinds(all: AnyKind[], names?: string[]): AnyKind[] {
  if (!names || names.length === 0) return all;
  const unknown = names.filter((n) => !all.some((k) => k.kind === n));
  if (unknown.length) throw new Error(`unknown actor kind(s): ${unknown.join(', ')}; known: ${all.map((k) => k.kind).join(', ') || '(none)'}`);
  return all.filter((k) => names.includes(k.kind));
}
