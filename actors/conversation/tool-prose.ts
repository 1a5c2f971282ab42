/**
 * Offline prose for the deck coach: with no language model configured, the agent still answers in
 * natural language from the meta tools' real results. `describeOutcomes` writes a short Markdown answer,
 * `toolSummary` one line per call for the `tool_call` complete event.
 *
 * Results arrive over the network, so every field is read as possibly missing or of the wrong type and
 * whatever is absent is left out; nothing here throws on odd data. Figures are printed exactly as the
 * tool gave them (11.47%, 2887, 2026-07-10) so a reader can find each one in the tool result, and data
 * text has its straight double quotes curled so no line reads like JSON.
 */
import type { outputs } from '../meta/contract.js';

export type MetaToolName =
  | 'get_format_meta_rankings'
  | 'get_format_matchup_stats'
  | 'get_format_archetypes'
  | 'get_enriched_deck'
  | 'get_deck_matchup_stats'
  | 'generate_deck_matchup_strategy'
  | 'optimize_mainboard'
  | 'optimize_sideboard';

// Fails to compile when the meta contract gains, loses or renames a tool, so this list cannot drift.
const _sameToolsAsContract: [MetaToolName] extends [keyof typeof outputs] ? ([keyof typeof outputs] extends [MetaToolName] ? true : never) : never = true;

export interface ToolOutcome {
  tool: MetaToolName;
  args: Record<string, unknown>;
  /** The tool's structuredContent when it succeeded. */
  result?: unknown;
  /** The tool's error text when it failed. */
  error?: string;
}

const SUMMARY_MAX = 160;
const TOP_RANKINGS = 8;
const TOP_MATRIX_ROWS = 5;
/** Below this many matches a matrix cell is too thin to call a best or worst matchup. */
const MIN_MATRIX_MATCHES = 10;
/** Below this many matches a deck's matchup is too thin to call a best or worst one. */
const MIN_DECK_MATCHES = 5;
const TOP_CARDS = 5;

// ---------------------------------------------------------------------------------------------------
// Reading untrusted results

type Fields = Record<string, unknown>;

/** An object's fields; anything else (null, an array, a string) reads as an object with no fields. */
const fieldsOf = (value: unknown): Fields => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : {});
const rowsOf = (value: unknown): Fields[] => (Array.isArray(value) ? value.map(fieldsOf) : []);
const numberOf = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const ownField = (fields: Fields, key: string): unknown => (Object.hasOwn(fields, key) ? fields[key] : undefined);

/** Straight double quotes become typographic ones: a card named "Ach! Hans, Run!" must not read as JSON. */
const curl = (text: string): string => text.replace(/"([^"\n]*)"/g, '“$1”').replace(/"/g, '”');

/** A name or short text from the data on one line, or undefined when absent or blank. */
function nameOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.replace(/\s+/g, ' ').trim();
  return text === '' ? undefined : curl(text);
}

const namesOf = (value: unknown): string[] => (Array.isArray(value) ? value.map(nameOf).filter((n): n is string => n !== undefined) : []);
const present = <T>(value: T | undefined | '' | false): value is T => value !== undefined && value !== '' && value !== false;

// ---------------------------------------------------------------------------------------------------
// Wording

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const matchCount = (n: number) => plural(n, 'match', 'matches');
/** "+2.47" / "-1.88" / "0": ASCII signs, so the figure reads exactly as in the data. */
const signed = (n: number) => (n > 0 ? `+${n}` : `${n}`);
const round2 = (n: number) => Math.round(n * 100) / 100;

/** "a, b and c" (or "a, b or c"). */
function series(items: readonly string[], last = 'and'): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} ${last} ${items[items.length - 1]}`;
}

const COLOUR_WORDS: Record<string, string> = { W: 'white', U: 'blue', B: 'black', R: 'red', G: 'green' };

/** "white-red" for "WR", "colourless" for "C"; undefined for a code that is not WUBRG letters. */
function colourWords(code: string): string | undefined {
  if (code === 'C') return 'colourless';
  const words = [...code].map((letter) => COLOUR_WORDS[letter]);
  return words.length > 0 && words.every(present) ? words.join('-') : undefined;
}

/** "WR (white-red)", "C (colourless)"; an unknown code is shown as given. */
function colourName(code: string): string {
  const words = colourWords(code);
  return words ? `${code} (${words})` : code;
}

/** "2026-07-10 to 2026-08-08", or undefined without both ends. */
function spanOf(window: Fields): string | undefined {
  const start = nameOf(window.start);
  const end = nameOf(window.end);
  return start && end ? `${start} to ${end}` : undefined;
}

/** ", 2026-07-10 to 2026-08-08 (30 days, 2887 decks, 3531 matches)" from whatever the window carries. */
function periodPhrase(window: Fields): string {
  const span = spanOf(window);
  const days = numberOf(window.days);
  const decks = numberOf(window.decks);
  const matches = numberOf(window.matches);
  const counts = [days !== undefined && plural(days, 'day', 'days'), decks !== undefined && plural(decks, 'deck', 'decks'), matches !== undefined && matchCount(matches)].filter(present);
  return `${span ? `, ${span}` : ''}${counts.length ? ` (${counts.join(', ')})` : ''}`;
}

/** "45.4% over 659 matches"; a null win rate means the tool saw too few matches to give one. */
function rateText(winRate: unknown, matches: unknown): string | undefined {
  const rate = numberOf(winRate);
  const count = numberOf(matches);
  if (rate !== undefined) return `${rate}%${count !== undefined ? ` over ${matchCount(count)}` : ''}`;
  if (count === 0) return 'no matches';
  if (winRate === null || count !== undefined) return `too few matches for a win rate${count !== undefined ? ` (${matchCount(count)})` : ''}`;
  return undefined;
}

/** "33.8% over 69 matches (22-43-4 W-L-D)" from a {win_rate, match_count, wins, losses, draws} record. */
function recordText(record: Fields): string | undefined {
  const rate = rateText(record.win_rate, record.match_count);
  const [wins, losses, draws] = [numberOf(record.wins), numberOf(record.losses), numberOf(record.draws)];
  const tally = wins !== undefined && losses !== undefined ? (draws !== undefined ? ` (${wins}-${losses}-${draws} W-L-D)` : ` (${wins}-${losses} W-L)`) : '';
  return rate ? `${rate}${tally}` : undefined;
}

/** One line of at most SUMMARY_MAX characters: the head, then as many items as fit, then "…". */
function fitLine(head: string, items: readonly string[]): string {
  let line = head.replace(/\s+/g, ' '); // not trimmed: the head ends with the space before the items
  for (const [i, item] of items.entries()) {
    const next = `${line}${i === 0 ? '' : ', '}${oneLine(item)}`;
    if (next.length > SUMMARY_MAX - 3) return `${line}${i === 0 ? '' : ', '}…`;
    line = next;
  }
  return clip(line);
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

function clip(text: string): string {
  const line = oneLine(text);
  if (line.length <= SUMMARY_MAX) return line;
  const cut = line.slice(0, SUMMARY_MAX - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > SUMMARY_MAX / 2 ? cut.slice(0, space) : cut}…`;
}

/**
 * The tool's own prose (advice, explanation), paragraphs kept. Its template opens with the same bold
 * title the answer already starts with (e.g. "**Boros Energy vs Goryo Reanimator** (Modern, …)."), so
 * that opening paragraph is dropped rather than said twice.
 */
function toolProse(value: unknown, title: string): string | undefined {
  if (typeof value !== 'string') return undefined;
  const paragraphs = value.trim().split(/\n\s*\n/);
  if (paragraphs[0]?.startsWith(`**${title}**`)) paragraphs.shift();
  const text = curl(paragraphs.join('\n\n').trim());
  return text === '' ? undefined : text;
}

const bullets = (lines: readonly string[]) => lines.map((line) => `- ${line}`).join('\n');
const blocks = (parts: ReadonlyArray<string | undefined | false>) => parts.filter(present).join('\n\n');

// ---------------------------------------------------------------------------------------------------
// get_format_meta_rankings

const isColourGrouping = (result: Fields, args: Fields) => (nameOf(fieldsOf(result.metadata).group_by) ?? nameOf(args.group_by)) === 'color_identity';

/** A ranking row's name: the archetype, or (grouped by colour identity) the colour identity. */
function rankingName(row: Fields, byColour: boolean, short = false): string | undefined {
  const colour = nameOf(row.color_identity);
  if (byColour || (row.archetype === undefined && Array.isArray(row.archetypes))) return colour && (short ? colour : colourName(colour));
  return nameOf(row.archetype) ?? nameOf(row.id);
}

/** The row's share change in points, only when the previous period has a share to compare with. */
function shareChange(row: Fields): number | undefined {
  const previous = numberOf(row.meta_share_previous);
  if (previous === undefined) return undefined;
  const current = numberOf(row.meta_share_current);
  return numberOf(row.meta_share_change) ?? (current === undefined ? undefined : round2(current - previous));
}

function rankingLine(row: Fields, index: number, byColour: boolean): string {
  const share = numberOf(row.meta_share_current);
  const decks = numberOf(row.sample_size_current);
  const change = shareChange(row);
  const colour = nameOf(row.color_identity);
  const members = namesOf(row.archetypes);
  const winRate = row.win_rate_current === undefined ? undefined : rateText(row.win_rate_current, row.match_count_current);
  const parts = [
    share !== undefined ? `${share}% of the meta${decks !== undefined ? ` (${plural(decks, 'deck', 'decks')})` : ''}` : decks !== undefined && plural(decks, 'deck', 'decks'),
    change !== undefined && `${signed(change)} points vs the previous period (${numberOf(row.meta_share_previous)}%)`,
    winRate && (numberOf(row.win_rate_current) === undefined ? winRate : `win rate ${winRate}`),
    byColour && members.length > 0 && `includes ${series(members.length > 4 ? [...members.slice(0, 3), `${members.length - 3} more`] : members)}`,
  ].filter(present);
  const name = rankingName(row, byColour)!;
  // Decks no archetype rule matched are named by colour already, e.g. "Unknown (UR)".
  const label = !byColour && colour && !name.endsWith(`(${colour})`) ? ` (${colour})` : '';
  return `${index}. **${name}**${label}${parts.length ? `: ${parts.join('; ')}` : ''}.`;
}

/** "Compared with …, the biggest riser is X (+2.47 points) and the biggest faller Y (-1.88 points)." */
function moversSentence(rows: Fields[], metadata: Fields, byColour: boolean): string | undefined {
  const previous = fieldsOf(metadata.previous_period);
  if (numberOf(previous.decks) === 0) return undefined; // no previous data: every change would be the whole share
  const moves = rows.map((row) => ({ name: rankingName(row, byColour, true)!, change: shareChange(row) })).filter((m): m is { name: string; change: number } => m.change !== undefined);
  if (moves.length === 0) return undefined;
  const riser = moves.reduce((best, m) => (m.change > best.change ? m : best));
  const faller = moves.reduce((worst, m) => (m.change < worst.change ? m : worst));
  const span = spanOf(previous);
  const decks = numberOf(previous.decks);
  const against = `Compared with the previous period${span ? ` (${span}${decks !== undefined ? `, ${plural(decks, 'deck', 'decks')}` : ''})` : ''}`;
  const parts = [riser.change > 0 && `the biggest riser is ${riser.name} (${signed(riser.change)} points)`, faller.change < 0 && `the biggest faller is ${faller.name} (${faller.change} points)`].filter(present);
  return parts.length ? `${against}, ${series(parts)}.` : `${against}, no share moved.`;
}

function describeRankings(result: Fields, args: Fields): string {
  const metadata = fieldsOf(result.metadata);
  const byColour = isColourGrouping(result, args);
  const format = nameOf(metadata.format) ?? nameOf(args.format);
  const filter = nameOf(metadata.color_identity);
  const rows = rowsOf(result.data).filter((row) => rankingName(row, byColour) !== undefined);
  const kind = byColour ? 'colour identities' : 'archetypes';
  const heading = `**${format ? `${format} meta rankings` : 'Meta rankings'}${byColour ? ' by colour identity' : ''}**${periodPhrase(fieldsOf(metadata.current_period))}${filter ? `, ${colourName(filter)} archetypes only` : ''}.`;
  const count = rows.length === 0 ? `No ${kind} have decks in this window.` : `${rows.length} ${rows.length === 1 ? kind.replace(/ies$/, 'y').replace(/s$/, '') : kind}${rows.length > TOP_RANKINGS ? `; the top ${TOP_RANKINGS}` : ''} by current meta share:`;
  const list = rows.slice(0, TOP_RANKINGS).map((row, i) => rankingLine(row, i + 1, byColour));
  return blocks([`${heading} ${count}`, list.join('\n'), moversSentence(rows, metadata, byColour)]);
}

function summariseRankings(result: Fields, args: Fields): string {
  const byColour = isColourGrouping(result, args);
  const format = nameOf(fieldsOf(result.metadata).format) ?? nameOf(args.format);
  const rows = rowsOf(result.data).filter((row) => rankingName(row, byColour) !== undefined);
  const top = rows.map((row) => `${rankingName(row, byColour, true)}${numberOf(row.meta_share_current) !== undefined ? ` ${numberOf(row.meta_share_current)}%` : ''}`);
  return fitLine(`${format ? `${format}: ` : ''}${rows.length} ${byColour ? 'colour identities' : 'archetypes'}${top.length ? '; top: ' : ''}`, top);
}

// ---------------------------------------------------------------------------------------------------
// get_format_matchup_stats

interface MatrixRow {
  key: string;
  name: string;
  cells: Fields;
  matches: number;
}

/** The matrix rows, most matches first (the tool's own order breaks ties). */
function matrixRows(result: Fields): MatrixRow[] {
  const matrix = fieldsOf(result.matrix);
  const listed = (Array.isArray(result.archetypes) ? result.archetypes : []).filter((a): a is string => typeof a === 'string' && Object.hasOwn(matrix, a));
  const keys = [...new Set([...listed, ...Object.keys(matrix)])];
  return keys
    .map((key) => {
      const cells = fieldsOf(ownField(matrix, key));
      const matches = Object.keys(cells).reduce((sum, column) => sum + (numberOf(fieldsOf(cells[column]).match_count) ?? 0), 0);
      return { key, name: nameOf(key) ?? key, cells, matches };
    })
    .filter((row) => row.name.trim() !== '')
    .sort((a, b) => b.matches - a.matches);
}

function matrixLine(row: MatrixRow): string {
  const opponents = Object.keys(row.cells)
    .filter((column) => column !== row.key)
    .map((column) => {
      const cell = fieldsOf(row.cells[column]);
      return { name: nameOf(column) ?? column, rate: numberOf(cell.win_rate), matches: numberOf(cell.match_count) };
    })
    .filter((cell): cell is { name: string; rate: number; matches: number } => cell.rate !== undefined && cell.matches !== undefined && cell.matches >= MIN_MATRIX_MATCHES)
    .sort((a, b) => b.rate - a.rate || b.matches - a.matches);
  const cell = (c: { name: string; rate: number; matches: number }) => `${c.name} (${c.rate}% over ${matchCount(c.matches)})`;
  const verdict =
    opponents.length === 0
      ? `no opponent met ${MIN_MATRIX_MATCHES} or more times`
      : opponents.length === 1
        ? `only one opponent met ${MIN_MATRIX_MATCHES}+ times: ${cell(opponents[0])}`
        : `best against ${cell(opponents[0])}, worst against ${cell(opponents[opponents.length - 1])}`;
  return `**${row.name}** (${matchCount(row.matches)}): ${verdict}.`;
}

function describeMatchupMatrix(result: Fields, args: Fields): string {
  const metadata = fieldsOf(result.metadata);
  const format = nameOf(metadata.format) ?? nameOf(args.format);
  const rows = matrixRows(result);
  const minimum = numberOf(metadata.min_matches_for_win_rate) ?? 3;
  const heading = `**${format ? `${format} matchups` : 'Matchups'}**${periodPhrase({ ...fieldsOf(metadata.period), matches: metadata.matches })}: ${plural(rows.length, 'archetype', 'archetypes')} in the matrix.`;
  if (rows.length === 0) return `${heading} No matches between archetypes with known lists in this window.`;
  const intro = `The ${Math.min(rows.length, TOP_MATRIX_ROWS)} with the most matches, each with its best and worst matchup among opponents met at least ${MIN_MATRIX_MATCHES} times:`;
  return blocks([
    `${heading} ${intro}`,
    bullets(rows.slice(0, TOP_MATRIX_ROWS).map(matrixLine)),
    `Win rates under ${plural(minimum, 'match', 'matches')} are null (too few to say), and draws count as matches but not in the win rate.`,
  ]);
}

function summariseMatchupMatrix(result: Fields, args: Fields): string {
  const metadata = fieldsOf(result.metadata);
  const format = nameOf(metadata.format) ?? nameOf(args.format);
  const matches = numberOf(metadata.matches);
  const rows = matrixRows(result);
  const head = [format, matches !== undefined && `${matchCount(matches)}, ${plural(rows.length, 'archetype', 'archetypes')}`].filter(present).join(': ') || plural(rows.length, 'archetype', 'archetypes');
  return fitLine(`${head}${rows.length ? '; most played: ' : ''}`, rows.map((row) => row.name));
}

// ---------------------------------------------------------------------------------------------------
// get_format_archetypes

const archetypeRows = (result: Fields) => rowsOf(result.archetypes).filter((row) => nameOf(row.name) ?? nameOf(row.id));

function describeArchetypes(result: Fields, args: Fields): string {
  const metadata = fieldsOf(result.metadata);
  const format = nameOf(result.format) ?? nameOf(args.format);
  const rows = archetypeRows(result);
  const heading = `**${format ? `${format} archetypes` : 'Archetypes'}**${periodPhrase({ ...fieldsOf(metadata.period), decks: metadata.decks })}.`;
  if (rows.length === 0) return `${heading} No archetype has decks in this window.`;
  const lines = rows.slice(0, TOP_RANKINGS).map((row, i) => {
    const share = numberOf(row.meta_share);
    const colour = nameOf(row.color_identity);
    const parts = [share !== undefined && `${share}% of the meta`, colour && colourName(colour)].filter(present);
    return `${i + 1}. **${nameOf(row.name) ?? nameOf(row.id)}**${parts.length ? `: ${parts.join(', ')}` : ''}.`;
  });
  return blocks([`${heading} ${plural(rows.length, 'archetype', 'archetypes')}${rows.length > TOP_RANKINGS ? `; the top ${TOP_RANKINGS}` : ''} by meta share:`, lines.join('\n')]);
}

function summariseArchetypes(result: Fields, args: Fields): string {
  const format = nameOf(result.format) ?? nameOf(args.format);
  const rows = archetypeRows(result);
  const top = rows.map((row) => `${nameOf(row.name) ?? nameOf(row.id)}${numberOf(row.meta_share) !== undefined ? ` ${numberOf(row.meta_share)}%` : ''}`);
  return fitLine(`${format ? `${format}: ` : ''}${plural(rows.length, 'archetype', 'archetypes')}${top.length ? '; top: ' : ''}`, top);
}

// ---------------------------------------------------------------------------------------------------
// get_enriched_deck

const CARD_KINDS = [
  ['creature', 'creature', 'creatures'],
  ['instant', 'instant', 'instants'],
  ['sorcery', 'sorcery', 'sorceries'],
  ['land', 'land', 'lands'],
  ['other', 'other card', 'other cards'],
] as const;
type CardKind = (typeof CARD_KINDS)[number][0];

/** By the front face's type line, so "Sorcery // Land" counts as a sorcery; creature first (Dryad Arbor). */
function cardKind(typeLine: unknown): CardKind {
  const front = (typeof typeLine === 'string' ? typeLine.split('//')[0] : '').toLowerCase();
  return (['creature', 'instant', 'sorcery', 'land'] as const).find((kind) => new RegExp(`\\b${kind}\\b`).test(front)) ?? 'other';
}

const quantityOf = (card: Fields) => numberOf(card.quantity) ?? 1;
const sectionCount = (cards: Fields[], section: string) => cards.filter((c) => c.section === section).reduce((n, c) => n + quantityOf(c), 0);

/** "8 creatures, 12 instants and 20 lands; colours WR (white-red)" for the main deck. */
function mainDeckBreakdown(cards: Fields[]): string | undefined {
  const main = cards.filter((card) => card.section === 'mainboard' && nameOf(card.name));
  if (main.length === 0) return undefined;
  const counts = new Map<CardKind, number>();
  for (const card of main) counts.set(cardKind(card.type_line), (counts.get(cardKind(card.type_line)) ?? 0) + quantityOf(card));
  const kinds = CARD_KINDS.filter(([kind]) => counts.has(kind)).map(([kind, one, many]) => plural(counts.get(kind)!, one, many));
  const letters = new Set(main.flatMap((card) => namesOf(Array.isArray(card.color_identity) ? card.color_identity : card.colors)));
  const colours = [...'WUBRG'].filter((c) => letters.has(c)).join('') || 'C';
  return `Main deck: ${series(kinds)}; colours ${colourName(colours)}.`;
}

function unmatchedLine(entry: Fields): string {
  const quantity = numberOf(entry.quantity);
  const line = numberOf(entry.line);
  const where = [quantity !== undefined && `${quantity}`, entry.section === 'sideboard' ? 'sideboard' : entry.section === 'mainboard' && 'main deck', line !== undefined && `line ${line}`].filter(present);
  const suggestions = namesOf(entry.suggestions);
  return `${nameOf(entry.name)}${where.length ? ` (${where.join(', ')})` : ''}: ${suggestions.length ? `did you mean ${series(suggestions, 'or')}?` : 'no close match in the card data.'}`;
}

function describeEnrichedDeck(result: Fields): string {
  const cards = rowsOf(result.card_details);
  const unmatched = rowsOf(result.unmatched).filter((u) => nameOf(u.name));
  const main = numberOf(result.mainboard_count) ?? (cards.length ? sectionCount(cards, 'mainboard') : undefined);
  const side = numberOf(result.sideboard_count) ?? (cards.length ? sectionCount(cards, 'sideboard') : undefined);
  const counts = [main !== undefined && plural(main, 'main-deck card', 'main-deck cards'), side !== undefined && plural(side, 'sideboard card', 'sideboard cards')].filter(present);
  // An unmatched name is also reported as an error on its line; it is already listed with its suggestions.
  const shownLines = new Set(unmatched.map((u) => numberOf(u.line)).filter(present));
  const errors = namesOf(result.errors).filter((e) => !(/^line (\d+): no card named /.test(e) && shownLines.has(Number(/^line (\d+)/.exec(e)![1]))));
  return blocks([
    `**Your deck**${counts.length ? `: ${series(counts)}` : ''}.${unmatched.length === 0 && cards.length ? ' Every card was recognised.' : ''}`,
    mainDeckBreakdown(cards),
    unmatched.length > 0 && `Not recognised (${unmatched.length}):\n${bullets(unmatched.map(unmatchedLine))}`,
    errors.length > 0 && `Problems reading the list:\n${bullets(errors)}`,
  ]);
}

function summariseEnrichedDeck(result: Fields): string {
  const main = numberOf(result.mainboard_count);
  const side = numberOf(result.sideboard_count);
  const unmatched = rowsOf(result.unmatched).map((u) => nameOf(u.name)).filter(present);
  const head = [main !== undefined && `${main} main-deck`, side !== undefined && `${side} sideboard`].filter(present).join(' + ');
  const start = `${head ? `${head} cards; ` : ''}${unmatched.length ? `${unmatched.length} unmatched: ` : 'all cards matched'}`;
  return fitLine(start, unmatched);
}

// ---------------------------------------------------------------------------------------------------
// get_deck_matchup_stats

const opponentLine = (row: Fields) => `${nameOf(row.opponent_archetype)}: ${recordText(row) ?? 'no record'}`;

function describeDeckMatchups(result: Fields, args: Fields): string {
  const metadata = fieldsOf(result.metadata);
  const archetype = nameOf(result.archetype) ?? nameOf(args.archetype) ?? 'Your archetype';
  const format = nameOf(result.format) ?? nameOf(args.format);
  const rows = rowsOf(result.matchup_stats).filter((row) => nameOf(row.opponent_archetype));
  const overall = recordText(fieldsOf(result.overall));
  const heading = `**${archetype}${format ? ` in ${format}` : ''}**${periodPhrase(fieldsOf(metadata.period))}${overall ? `: ${overall} overall` : ''}, against ${plural(rows.length, 'archetype', 'archetypes')}.`;
  const rated = rows.filter((row) => numberOf(row.win_rate) !== undefined);
  const solid = rated.filter((row) => (numberOf(row.match_count) ?? 0) >= MIN_DECK_MATCHES);
  // With no matchup of 5+ matches the thin ones are all there is: show them, saying so.
  const shown = (solid.length ? solid : rated).sort((a, b) => numberOf(b.win_rate)! - numberOf(a.win_rate)! || (numberOf(b.match_count) ?? 0) - (numberOf(a.match_count) ?? 0));
  const scope = solid.length ? `with at least ${MIN_DECK_MATCHES} matches` : `(none has ${MIN_DECK_MATCHES} or more matches yet)`;
  if (shown.length === 0) return `${heading} No matchup has enough matches for a win rate yet.`;
  if (shown.length <= 6) return blocks([`${heading} Matchups ${scope}, best first:`, bullets(shown.map(opponentLine))]);
  return blocks([
    heading,
    `Best matchups ${scope}:\n${bullets(shown.slice(0, 3).map(opponentLine))}`,
    `Worst matchups:\n${bullets(shown.slice(-3).reverse().map(opponentLine))}`,
  ]);
}

function summariseDeckMatchups(result: Fields, args: Fields): string {
  const archetype = nameOf(result.archetype) ?? nameOf(args.archetype) ?? 'deck';
  const overall = fieldsOf(result.overall);
  const rate = rateText(overall.win_rate, overall.match_count);
  return clip(`${archetype}: ${rate ?? 'no overall record'}; ${plural(rowsOf(result.matchup_stats).length, 'opponent archetype', 'opponent archetypes')}`);
}

// ---------------------------------------------------------------------------------------------------
// generate_deck_matchup_strategy

/** "Psychic Frog (100%), Consign to Memory (45.5%)" from adoption rows. */
const adoptionList = (rows: Fields[]) => series(rows.filter((r) => nameOf(r.name)).slice(0, TOP_CARDS).map((r) => `${nameOf(r.name)}${numberOf(r.decks_pct) !== undefined ? ` (${numberOf(r.decks_pct)}%)` : ''}`));

function describeStrategy(result: Fields, args: Fields): string {
  const archetype = nameOf(result.archetype) ?? nameOf(args.archetype) ?? 'Your deck';
  const opponent = nameOf(result.opponent_archetype) ?? nameOf(args.opponent_archetype) ?? 'the opponent';
  const format = nameOf(result.format) ?? nameOf(args.format);
  const record = fieldsOf(result.matchup_stats);
  const rate = rateText(record.win_rate, record.match_count);
  const where = [format, spanOf(fieldsOf(fieldsOf(result.metadata).period))].filter(present).join(', ');
  const heading = `**${archetype} vs ${opponent}**${where ? ` (${where})` : ''}${rate ? `: your record is ${rate}${record.source === 'caller' ? ' (as given)' : ''}` : ''}.`;
  const profile = fieldsOf(result.opponent_profile);
  const lists = numberOf(profile.lists);
  const theirs = adoptionList(rowsOf(profile.key_cards));
  const sideboard = adoptionList(rowsOf(profile.sideboard_cards));
  const yours = rowsOf(result.your_key_cards)
    .filter((c) => nameOf(c.name))
    .slice(0, TOP_CARDS)
    .map((c) => `${numberOf(c.quantity) !== undefined ? `${numberOf(c.quantity)} ` : ''}${nameOf(c.name)}${numberOf(c.decks_pct) !== undefined ? ` (in ${numberOf(c.decks_pct)}% of ${archetype} lists)` : ''}`);
  const facts = [
    theirs && `Their key cards${lists !== undefined ? ` across ${plural(lists, 'recent list', 'recent lists')}` : ''}: ${theirs}.`,
    sideboard && `They side in: ${sideboard}.`,
    yours.length > 0 && `Your key cards: ${series(yours)}.`,
    lists === 0 && `There are no recent ${opponent} lists in this window, so their cards cannot be described.`,
  ].filter(present);
  const advice = toolProse(result.advice, `${archetype} vs ${opponent}`);
  return blocks([heading, facts.length > 0 && bullets(facts), advice && `**Advice**\n\n${advice}`]);
}

function summariseStrategy(result: Fields, args: Fields): string {
  const archetype = nameOf(result.archetype) ?? nameOf(args.archetype) ?? 'deck';
  const opponent = nameOf(result.opponent_archetype) ?? nameOf(args.opponent_archetype) ?? 'opponent';
  const record = fieldsOf(result.matchup_stats);
  const rate = rateText(record.win_rate, record.match_count);
  const cards = rowsOf(fieldsOf(result.opponent_profile).key_cards)
    .filter((c) => nameOf(c.name))
    .map((c) => `${nameOf(c.name)}${numberOf(c.decks_pct) !== undefined ? ` ${numberOf(c.decks_pct)}%` : ''}`);
  return fitLine(`${archetype} vs ${opponent}${rate ? `: ${rate}` : ''}${cards.length ? '; their key cards: ' : ''}`, cards);
}

// ---------------------------------------------------------------------------------------------------
// optimize_mainboard and optimize_sideboard

/** "{1}{W}" -> "1W", "{2}{W/U}" -> "2(W/U)": mana costs without braces, which would read like JSON. */
const manaCost = (cost: unknown) => (typeof cost === 'string' ? cost.replace(/\{([^{}]*)\}/g, (_, symbol: string) => (symbol.length === 1 ? symbol : `(${symbol})`)).replace(/[{}]/g, '') : undefined);

/** "**Boros Energy main deck** (Modern, colours WR), from 300 recent Boros Energy lists, 2026-07-10 to 2026-08-08." */
function optimiserHeading(result: Fields, args: Fields, title: string): string {
  const metadata = fieldsOf(result.metadata);
  const format = nameOf(result.format) ?? nameOf(args.format);
  const colours = nameOf(result.deck_colors);
  const archetype = nameOf(result.archetype) ?? nameOf(args.archetype);
  const lists = numberOf(metadata.archetype_lists);
  const span = spanOf(fieldsOf(metadata.period));
  const where = [format, colours && `colours ${[colours, colourWords(colours)].filter(present).join(', ')}`].filter(present).join('; ');
  const from = [lists !== undefined && `from ${lists} recent ${archetype ? `${archetype} ` : ''}${lists === 1 ? 'list' : 'lists'}`, span].filter(present).join(', ');
  return `**${title}**${where ? ` (${where})` : ''}${from ? `, ${from}` : ''}.`;
}

function topArchetypeLine(row: Fields): string {
  const share = numberOf(row.meta_share);
  const record = recordText(fieldsOf(row.matchup));
  return `${nameOf(row.archetype)}${share !== undefined ? ` (${share}% of the meta)` : ''}: ${record ? `your record ${record}` : 'no record against it'}`;
}

function recommendationLine(row: Fields): string {
  const quantity = numberOf(row.quantity);
  const facts = [nameOf(row.type_line), manaCost(row.mana_cost)].filter(present);
  const replaces = nameOf(row.replaces);
  const ours = numberOf(row.archetype_decks_pct);
  const top = numberOf(row.top_archetypes_decks_pct);
  const adoption = [ours !== undefined && `in ${ours}% of the archetype's lists`, top !== undefined && `${top}% of the top archetypes' lists`].filter(present);
  return `Add ${quantity !== undefined ? `${quantity} ` : ''}${nameOf(row.add)}${facts.length ? ` (${facts.join(', ')})` : ''}${replaces ? ` replacing ${replaces}` : ''}${adoption.length ? `: ${series(adoption)}` : ''}.`;
}

function describeMainboard(result: Fields, args: Fields): string {
  const archetype = nameOf(result.archetype) ?? nameOf(args.archetype);
  const title = `${archetype ?? 'Your'} main deck`;
  const top = rowsOf(result.top_archetypes).filter((r) => nameOf(r.archetype));
  const flex = rowsOf(result.flex_spots).filter((r) => nameOf(r.name));
  const recommendations = rowsOf(result.recommendations).filter((r) => nameOf(r.add));
  const flexList = flex.map((f) => `${numberOf(f.quantity) !== undefined ? `${numberOf(f.quantity)} ` : ''}${nameOf(f.name)}${numberOf(f.decks_pct) !== undefined ? ` (in ${numberOf(f.decks_pct)}% of lists)` : ''}`);
  const explanation = toolProse(result.explanation, title);
  return blocks([
    optimiserHeading(result, args, title),
    top.length > 0 && `Your record against the top archetypes:\n${bullets(top.map(topArchetypeLine))}`,
    Array.isArray(result.flex_spots) && (flex.length ? `Flex spots (cards few recent lists of the archetype play): ${series(flexList)}.` : 'No flex spots: every non-land card is played by most recent lists of the archetype.'),
    recommendations.length > 0 ? `Recommended changes:\n${bullets(recommendations.map(recommendationLine))}` : Array.isArray(result.recommendations) && 'No replacement to recommend.',
    explanation && `**Explanation**\n\n${explanation}`,
  ]);
}

function summariseMainboard(result: Fields, args: Fields): string {
  const archetype = nameOf(result.archetype) ?? nameOf(args.archetype);
  const flex = rowsOf(result.flex_spots).length;
  const recommendations = rowsOf(result.recommendations).filter((r) => nameOf(r.add));
  const adds = recommendations.map((r) => `+${numberOf(r.quantity) ?? ''} ${nameOf(r.add)}`.replace('+ ', '+'));
  return fitLine(`${archetype ? `${archetype}: ` : ''}${plural(flex, 'flex spot', 'flex spots')}, ${plural(recommendations.length, 'recommendation', 'recommendations')}${adds.length ? ': ' : ''}`, adds);
}

function changeLine(change: Fields): string {
  const card = nameOf(change.card);
  const from = numberOf(change.from);
  const to = numberOf(change.to);
  const move = from !== undefined && to !== undefined ? ` (${from} → ${to})` : '';
  const reason = nameOf(change.reason);
  const verb = change.action === 'add' ? 'Add' : change.action === 'remove' ? 'Cut' : 'Adjust';
  const count = change.action === 'add' ? to : change.action === 'remove' ? from : undefined;
  return `${verb} ${count !== undefined ? `${count} ` : ''}${card}${move}${reason ? `: ${reason}` : ''}.`;
}

function evidenceText(evidence: Fields): string | undefined {
  const withRate = numberOf(evidence.win_rate_with);
  const withoutRate = numberOf(evidence.win_rate_without);
  if (withRate === undefined || withoutRate === undefined) return undefined;
  const withMatches = numberOf(evidence.matches_with);
  const withoutMatches = numberOf(evidence.matches_without);
  return `${withRate}% with it${withMatches !== undefined ? ` over ${matchCount(withMatches)}` : ''} vs ${withoutRate}% without${withoutMatches !== undefined ? ` over ${withoutMatches}` : ''}`;
}

function planLine(plan: Fields): string {
  const share = numberOf(plan.meta_share);
  const record = recordText(fieldsOf(plan.matchup));
  const evidence = new Map(rowsOf(plan.evidence).map((e) => [nameOf(e.card), evidenceText(e)]));
  const bringIn = namesOf(plan.bring_in).map((card) => (evidence.get(card) ? `${card} (${evidence.get(card)})` : card));
  const about = [share !== undefined && `${share}% of the meta`, record && `your record ${record}`].filter(present);
  return `vs ${nameOf(plan.opponent_archetype)}${about.length ? ` — ${about.join(', ')}` : ''}: ${bringIn.length ? `bring in ${series(bringIn)}` : 'no card of the final sideboard did clearly better against them in the data'}.`;
}

function describeSideboard(result: Fields, args: Fields): string {
  const archetype = nameOf(result.archetype) ?? nameOf(args.archetype);
  const title = `${archetype ?? 'Your'} sideboard`;
  const changes = rowsOf(result.sideboard_changes).filter((c) => nameOf(c.card));
  const plans = rowsOf(result.sideboard_plans).filter((p) => nameOf(p.opponent_archetype));
  const final = rowsOf(result.final_sideboard).filter((c) => nameOf(c.name));
  const changed = new Set(changes.map((c) => nameOf(c.card)));
  // A final card with no change was in the user's sideboard at the same count: it is kept.
  const kept = final.filter((c) => !changed.has(nameOf(c.name))).map((c) => `${numberOf(c.quantity) ?? ''} ${nameOf(c.name)}`.trim());
  const total = final.reduce((n, c) => n + (numberOf(c.quantity) ?? 0), 0);
  const explanation = toolProse(result.explanation, title);
  return blocks([
    optimiserHeading(result, args, title),
    changes.length > 0 ? `Changes:\n${bullets([...changes.map(changeLine), ...(kept.length && Array.isArray(result.final_sideboard) ? [`Keep ${series(kept)}.`] : [])])}` : Array.isArray(result.sideboard_changes) && 'No changes: your sideboard already matches what the archetype\'s players bring.',
    plans.length > 0 && `Against the top archetypes:\n${bullets(plans.map(planLine))}`,
    final.length > 0 && `Final sideboard (${total}): ${final.map((c) => `${numberOf(c.quantity) ?? ''} ${nameOf(c.name)}`.trim()).join(', ')}.`,
    explanation && `**Explanation**\n\n${explanation}`,
  ]);
}

function summariseSideboard(result: Fields, args: Fields): string {
  const archetype = nameOf(result.archetype) ?? nameOf(args.archetype);
  const changes = rowsOf(result.sideboard_changes).filter((c) => nameOf(c.card));
  const items = changes.map((c) => {
    const [from, to] = [numberOf(c.from), numberOf(c.to)];
    if (from !== undefined && to !== undefined) return `${nameOf(c.card)} ${from}→${to}`;
    return `${c.action === 'remove' ? '-' : '+'}${nameOf(c.card)}`;
  });
  return fitLine(`${archetype ? `${archetype} sideboard: ` : ''}${plural(changes.length, 'change', 'changes')}${items.length ? ': ' : ''}`, items);
}

// ---------------------------------------------------------------------------------------------------
// Dispatch

interface ToolProse {
  /** How a person would name what the tool returns, for "I could not get …". */
  human: string;
  describe(result: Fields, args: Fields): string;
  summary(result: Fields, args: Fields): string;
}

const PROSE: Record<MetaToolName, ToolProse> = {
  get_format_meta_rankings: { human: 'the meta rankings', describe: describeRankings, summary: summariseRankings },
  get_format_matchup_stats: { human: 'the matchup matrix', describe: describeMatchupMatrix, summary: summariseMatchupMatrix },
  get_format_archetypes: { human: 'the archetype list', describe: describeArchetypes, summary: summariseArchetypes },
  get_enriched_deck: { human: 'the card details of your deck', describe: describeEnrichedDeck, summary: summariseEnrichedDeck },
  get_deck_matchup_stats: { human: 'the deck\'s matchup stats', describe: describeDeckMatchups, summary: summariseDeckMatchups },
  generate_deck_matchup_strategy: { human: 'the matchup strategy', describe: describeStrategy, summary: summariseStrategy },
  optimize_mainboard: { human: 'the main-deck suggestions', describe: describeMainboard, summary: summariseMainboard },
  optimize_sideboard: { human: 'the sideboard suggestions', describe: describeSideboard, summary: summariseSideboard },
};

/** The tool's table entry; a name outside the table (it came over the network) gets a plain fallback. */
function proseFor(tool: unknown): ToolProse {
  if (typeof tool === 'string' && Object.hasOwn(PROSE, tool)) return PROSE[tool as MetaToolName];
  const name = (typeof tool === 'string' ? nameOf(tool.replace(/_/g, ' ')) : undefined) ?? 'a tool';
  return { human: `the result of ${name}`, describe: () => `I called ${name}, but I cannot describe its result.`, summary: () => 'done' };
}

/** "the meta rankings for Modern": the format (or archetype) asked about, when the call named one. */
function humanName(outcome: ToolOutcome): string {
  const args = fieldsOf(outcome.args);
  const about = nameOf(args.format) ?? nameOf(args.archetype);
  return `${proseFor(outcome.tool).human}${about ? ` for ${about}` : ''}`;
}

/** The failure text, or undefined when the outcome has a result to describe. */
function failureOf(outcome: ToolOutcome): string | undefined {
  if (typeof outcome.error === 'string' && outcome.error.trim() !== '') return nameOf(outcome.error);
  if (typeof outcome.result !== 'object' || outcome.result === null || Array.isArray(outcome.result)) return 'the tool returned no result';
  return undefined;
}

export function toolSummary(outcome: ToolOutcome): string {
  outcome = fieldsOf(outcome) as unknown as ToolOutcome; // typed, but it came over the network
  const failure = failureOf(outcome);
  if (failure !== undefined) return clip(`failed: ${failure}`);
  return clip(proseFor(outcome.tool).summary(fieldsOf(outcome.result), fieldsOf(outcome.args)));
}

function describeOutcome(outcome: ToolOutcome): string {
  const failure = failureOf(outcome);
  if (failure !== undefined) return `I could not get ${humanName(outcome)}: ${failure}${/[.!?]$/.test(failure) ? '' : '.'}`;
  return proseFor(outcome.tool).describe(fieldsOf(outcome.result), fieldsOf(outcome.args));
}

export function describeOutcomes(outcomes: ToolOutcome[]): string {
  if (!Array.isArray(outcomes) || outcomes.length === 0) return 'I have no tool results to describe.';
  return outcomes.map((outcome) => describeOutcome(fieldsOf(outcome) as unknown as ToolOutcome)).join('\n\n');
}
