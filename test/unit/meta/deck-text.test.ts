import { expect } from 'chai';
import fc from 'fast-check';
import { cardLookupKey } from '../../../models/mtg/card-lookup-key.js';
import { HOSTILE_DECK_TEXTS } from '../../../scripts/bench/deck-parsing.js';
import {
  DECK_TEXT_LIMITS,
  DeckTextError,
  mergeEntries,
  parseDeckText,
  stripPrintingDetails,
  type DeckEntry,
  type ParsedDeck,
} from '../../../actors/meta/deck-text.js';

/** [quantity, name, section] of every entry, for compact expectations. */
function summary(parsed: ParsedDeck): Array<[number, string, DeckEntry['section']]> {
  return parsed.entries.map((entry) => [entry.quantity, entry.name, entry.section]);
}

function total(parsed: ParsedDeck, section: DeckEntry['section']): number {
  return parsed.entries.filter((entry) => entry.section === section).reduce((sum, entry) => sum + entry.quantity, 0);
}

const ARENA_EXPORT = `About
Name Boros Energy

Deck
4 Ragavan, Nimble Pilferer (MH2) 138
4 Guide of Souls (MH3) 29
4 Ocelot Pride (MH3) 38
4 Phlage, Titan of Fire's Fury (MH3) 228
3 Ajani, Nacatl Pariah (MH3) 237
4 Galvanic Discharge (MH3) 122
4 Lightning Bolt (2XM) 141
4 Static Prison (MH3) 47
2 Fable of the Mirror-Breaker (NEO) 141a
1 Sheoldred, the Apocalypse (DMU) 107 *F*
1 Goblin Bombardment (MH2) 279
4 Arid Mesa (MH2) 244
4 Arena of Glory (MH3) 215
4 Elegant Parlor (MKM) 260
3 Sacred Foundry (GRN) 254
3 Mountain (UNF) 239
3 Plains (DMU) 277
4 Marsh Flats (MH2) 248

Sideboard
2 Wear // Tear (STX) 230
2 Blood Moon (MM3) 89
3 Obsidian Charmaw (CMM) 237
2 Surgical Extraction (NPH) 74
1 Kozilek's Return (OGW) 98
2 Celestial Purge (CLB) 15
1 Sanctifier en-Vec (MH2) 27
2 High Noon (OTJ) 15
`;

const MOXFIELD_EXPORT = [
  '4 Ragavan, Nimble Pilferer (MH2) 138 *F* #Threat',
  '4 Dragon\'s Rage Channeler (MH2) 121 #!Enabler',
  '4 Murktide Regent (MH2) 52 *E*',
  '4 Counterspell (MH2) 267',
  '4 Expressive Iteration (STX) 186 #Draw #"Card Advantage"',
  '4 Lightning Bolt (2XM) 141',
  '4 Consider (MID) 44',
  '4 Mishra\'s Bauble (BRO) 34 *F*',
  '4 Unholy Heat (MH2) 145',
  '3 Spell Pierce (ZNR) 81',
  '2 Fire // Ice (MH2) 290',
  '4 Scalding Tarn (MH2) 254',
  '4 Steam Vents (GRN) 257',
  '3 Spirebluff Canal (KLR) 286',
  '4 Island (UNF) 235',
  '4 Polluted Delta (MH2) 256',
  '',
  'SIDEBOARD:',
  '2 Blood Moon [MM3]',
  '3 Mystical Dispute (ELD) 58',
  '2 Engineered Explosives (2XM) 240',
  '3 Dress Down (MH2) 39',
  '2 Brazen Borrower (ELD) 39',
  '3 Subtlety (MH2) 67',
].join('\n');

/** MTGO / MTGGoldfish .txt: 60 cards, a blank line, 15 sideboard cards, no header. */
const MTGO_EXPORT = `4 Urza's Saga
4 Amulet of Vigor
4 Primeval Titan
4 Summoner's Pact
4 Arboreal Grazer
4 Dryad of the Ilysian Grove
4 Azusa, Lost but Seeking
4 Explore
4 Spelunking
2 Scapeshift
4 Gemstone Caverns
4 Simic Growth Chamber
4 Boros Garrison
4 Crumbling Vestige
4 Forest
2 Hanweir Battlements

2 Dismember
3 Force of Vigor
2 Mystical Dispute
3 Trinisphere
2 Tormod's Crypt
3 Endurance
`;

describe('parseDeckText', () => {
  it('reads an MTG Arena export: About/Name ignored, set codes, collector numbers and foil markers removed', () => {
    const parsed = parseDeckText(ARENA_EXPORT);
    expect(parsed.problems).to.deep.equal([]);
    expect(total(parsed, 'mainboard')).to.equal(60);
    expect(total(parsed, 'sideboard')).to.equal(15);
    expect(parsed.entries[0]).to.deep.equal({ name: 'Ragavan, Nimble Pilferer', quantity: 4, section: 'mainboard', line: 5 });
    const names = parsed.entries.map((entry) => entry.name);
    expect(names).to.include.members(['Fable of the Mirror-Breaker', 'Sheoldred, the Apocalypse', "Phlage, Titan of Fire's Fury", 'Wear // Tear']);
    expect(names).not.to.include('Boros Energy');
    expect(parsed.entries.find((entry) => entry.name === 'Wear // Tear')?.section).to.equal('sideboard');
  });

  it('reads a Moxfield export: *F* / *E* markers, #tags, [SET] and a SIDEBOARD: header', () => {
    const parsed = parseDeckText(MOXFIELD_EXPORT);
    expect(parsed.problems).to.deep.equal([]);
    expect(total(parsed, 'mainboard')).to.equal(60);
    expect(total(parsed, 'sideboard')).to.equal(15);
    expect(summary(parsed).slice(0, 5)).to.deep.equal([
      [4, 'Ragavan, Nimble Pilferer', 'mainboard'],
      [4, "Dragon's Rage Channeler", 'mainboard'],
      [4, 'Murktide Regent', 'mainboard'],
      [4, 'Counterspell', 'mainboard'],
      [4, 'Expressive Iteration', 'mainboard'],
    ]);
    expect(summary(parsed)).to.deep.include([2, 'Fire // Ice', 'mainboard']);
    expect(summary(parsed)).to.deep.include([2, 'Blood Moon', 'sideboard']);
  });

  it('takes the group after the last blank line of an MTGO export as the sideboard', () => {
    const parsed = parseDeckText(MTGO_EXPORT);
    expect(parsed.problems).to.deep.equal([]);
    expect(total(parsed, 'mainboard')).to.equal(60);
    expect(total(parsed, 'sideboard')).to.equal(15);
    expect(parsed.entries.find((entry) => entry.name === 'Dismember')).to.deep.equal({
      name: 'Dismember',
      quantity: 2,
      section: 'sideboard',
      line: 18,
    });
  });

  it('does not care about leading, trailing or repeated blank lines in an MTGO export', () => {
    const padded = `\n\n\n${MTGO_EXPORT.replace('2 Hanweir Battlements\n', '2 Hanweir Battlements\n\n\n \t\n')}\n\n\n`;
    expect(summary(parseDeckText(padded))).to.deep.equal(summary(parseDeckText(MTGO_EXPORT)));
  });

  it('keeps a small blank-line group in the middle of the list in the mainboard', () => {
    const text = [
      '4 Thoughtseize', '4 Grief', '4 Fatal Push', '4 Orcish Bowmasters', '4 Psychic Frog',
      '',
      '4 Ephemerate', // a 4-card group in the middle: only layout
      '',
      '4 Solitude', '4 Endurance', '4 Subtlety', '4 Archon of Cruelty', '4 Marsh Flats', '4 Godless Shrine',
      '4 Watery Grave', '4 Flooded Strand', '4 Scalding Tarn',
    ].join('\n');
    const parsed = parseDeckText(text);
    expect(total(parsed, 'sideboard')).to.equal(0);
    expect(total(parsed, 'mainboard')).to.equal(60);
  });

  it('keeps a last blank-line group in the mainboard when it is too big or the main deck too small', () => {
    const main = Array.from({ length: 10 }, (_, index) => `4 Card Number ${index + 1}`).join('\n'); // 40 cards
    const tooBig = `${main}\n\n4 Side A\n4 Side B\n4 Side C\n4 Side D`; // 16 cards
    expect(total(parseDeckText(tooBig), 'sideboard')).to.equal(0);
    const exactly = `${main}\n\n4 Side A\n4 Side B\n4 Side C\n3 Side D`; // 15 after 40
    expect(total(parseDeckText(exactly), 'sideboard')).to.equal(15);
    const smallMain = `${main.split('\n').slice(1).join('\n')}\n\n4 Side A`; // 36 cards before
    expect(total(parseDeckText(smallMain), 'sideboard')).to.equal(0);
  });

  it('does not apply the blank-line rule when the deck marks its sideboard explicitly', () => {
    const text = `${MTGO_EXPORT.split('\n\n')[0]}\n\n1 Lurrus of the Dream-Den\n\nSB: 2 Blood Moon\nSB: 1 Force of Vigor`;
    const parsed = parseDeckText(text);
    expect(summary(parsed).slice(-3)).to.deep.equal([
      [1, 'Lurrus of the Dream-Den', 'mainboard'],
      [2, 'Blood Moon', 'sideboard'],
      [1, 'Force of Vigor', 'sideboard'],
    ]);
  });

  it('reads SB: prefixes, with or without a space, in any case', () => {
    const parsed = parseDeckText('4 Lightning Bolt\nSB: 2 Blood Moon\nsb:1 Pyroblast\nSB:  3x Smash to Smithereens');
    expect(summary(parsed)).to.deep.equal([
      [4, 'Lightning Bolt', 'mainboard'],
      [2, 'Blood Moon', 'sideboard'],
      [1, 'Pyroblast', 'sideboard'],
      [3, 'Smash to Smithereens', 'sideboard'],
    ]);
  });

  it('understands the usual ways of writing a quantity', () => {
    const lines = [
      '4 Lightning Bolt',
      '4x Lightning Bolt',
      '4X Lightning Bolt',
      '4 x Lightning Bolt',
      '4 X Lightning Bolt',
      '4× Lightning Bolt',
      '4 × Lightning Bolt',
      '4xLightning Bolt',
      '04 Lightning Bolt',
      'Lightning Bolt x4',
      '\t4\tLightning\u00a0Bolt  ',
    ];
    for (const line of lines) {
      const parsed = parseDeckText(line);
      expect(summary(parsed), line).to.deep.equal([[4, 'Lightning Bolt', 'mainboard']]);
      expect(parsed.problems, line).to.deep.equal([]);
    }
    expect(summary(parseDeckText('Lightning Bolt'))).to.deep.equal([[1, 'Lightning Bolt', 'mainboard']]);
    expect(summary(parseDeckText('12 Mountain'))).to.deep.equal([[12, 'Mountain', 'mainboard']]);
  });

  it('does not take the X starting a card name for a multiplier', () => {
    expect(summary(parseDeckText('4 Xenagos, the Reveler\n1 Xantcha, Sleeper Agent\nX Lightning Bolt'))).to.deep.equal([
      [4, 'Xenagos, the Reveler', 'mainboard'],
      [1, 'Xantcha, Sleeper Agent', 'mainboard'],
    ]);
  });

  it('treats section headers, with or without colons, counts or //, as headers', () => {
    const text = [
      'Main Deck',
      'Creatures (12)',
      '4 Ragavan, Nimble Pilferer',
      '4 Dragon\'s Rage Channeler',
      '// Instants',
      '4 Lightning Bolt',
      'Lands [20]',
      '4 Scalding Tarn',
      'Ramp (8)',
      '4 Utopia Sprawl',
      'SIDEBOARD (15)',
      '2 Blood Moon',
      'Maindeck:',
      '1 Island',
      '// Sideboard',
      '1 Pyroblast',
      'Mainboard',
      '1 Mountain',
      'Sideboard:',
      '1 Flusterstorm',
      'MAIN',
      '1 Forest',
    ].join('\n');
    const parsed = parseDeckText(text);
    expect(parsed.problems).to.deep.equal([]);
    expect(summary(parsed)).to.deep.equal([
      [4, 'Ragavan, Nimble Pilferer', 'mainboard'],
      [4, "Dragon's Rage Channeler", 'mainboard'],
      [4, 'Lightning Bolt', 'mainboard'],
      [4, 'Scalding Tarn', 'mainboard'],
      [4, 'Utopia Sprawl', 'mainboard'],
      [2, 'Blood Moon', 'sideboard'],
      [1, 'Island', 'mainboard'],
      [1, 'Pyroblast', 'sideboard'],
      [1, 'Mountain', 'mainboard'],
      [1, 'Flusterstorm', 'sideboard'],
      [1, 'Forest', 'mainboard'],
    ]);
  });

  it('does not read a last group introduced by a header as an implicit sideboard', () => {
    const text = [
      'Creatures (24)',
      ...Array.from({ length: 6 }, (_, index) => `4 Creature ${index + 1}`),
      '',
      'Spells (24)',
      ...Array.from({ length: 6 }, (_, index) => `4 Spell ${index + 1}`),
      '',
      'Lands (12)',
      '4 Lava Dell',
      '8 Mountain',
    ].join('\n');
    const parsed = parseDeckText(text);
    expect(total(parsed, 'mainboard')).to.equal(60);
    expect(total(parsed, 'sideboard')).to.equal(0);
  });

  it('skips comments starting with // or #', () => {
    const text = '// Burn by me\n# version 2\n4 Lightning Bolt // the best card\n#4 Chain Lightning\n//4 Lava Spike';
    const parsed = parseDeckText(text);
    expect(parsed.problems).to.deep.equal([]);
    // "Lightning Bolt // the best card" is kept as typed: it reads like a split card name, the matcher decides.
    expect(summary(parsed)).to.deep.equal([[4, 'Lightning Bolt // the best card', 'mainboard']]);
  });

  it('puts Companion cards in the sideboard, and counts Arena\'s repeated companion once', () => {
    const text = [
      'Companion',
      '1 Lurrus of the Dream-Den (IKO) 226',
      '',
      'Deck',
      '4 Ragavan, Nimble Pilferer (MH2) 138',
      '',
      'Sideboard',
      '1 Lurrus of the Dream-Den (IKO) 226',
      '2 Blood Moon (MM3) 89',
    ].join('\n');
    expect(summary(parseDeckText(text))).to.deep.equal([
      [4, 'Ragavan, Nimble Pilferer', 'mainboard'],
      [1, 'Lurrus of the Dream-Den', 'sideboard'],
      [2, 'Blood Moon', 'sideboard'],
    ]);
    const companionOnly = 'Companion\n1 Jegantha, the Wellspring\n\n4 Lightning Bolt';
    expect(summary(parseDeckText(companionOnly))).to.deep.equal([
      [1, 'Jegantha, the Wellspring', 'sideboard'],
      [4, 'Lightning Bolt', 'mainboard'],
    ]);
  });

  it('puts Commander cards in the mainboard and skips a maybeboard', () => {
    const text = 'Commander\n1 Atraxa, Grand Unifier\n\nDeck\n1 Sol Ring\n\nMaybeboard\n1 Mana Crypt\n0 Junk';
    const parsed = parseDeckText(text);
    expect(summary(parsed)).to.deep.equal([
      [1, 'Atraxa, Grand Unifier', 'mainboard'],
      [1, 'Sol Ring', 'mainboard'],
    ]);
    expect(parsed.problems).to.deep.equal([]);
  });

  it('keeps split, adventure and double-faced names as typed', () => {
    const text = '2 Fire // Ice\n1 Fire/Ice\n2 Fable of the Mirror-Breaker\n1 Fable of the Mirror-Breaker // Reflection of Kiki-Jiki\n1 Bonecrusher Giant // Stomp (ELD) 115';
    expect(summary(parseDeckText(text)).map(([, name]) => name)).to.deep.equal([
      'Fire // Ice',
      'Fire/Ice',
      'Fable of the Mirror-Breaker',
      'Fable of the Mirror-Breaker // Reflection of Kiki-Jiki',
      'Bonecrusher Giant // Stomp',
    ]);
  });

  it('reads Windows line endings, old Mac ones and a byte-order mark, numbering lines as an editor would', () => {
    const parsed = parseDeckText('\uFEFFDeck\r\n4 Lightning Bolt\r\n\r\nSideboard\r\n2 Blood Moon\r\n');
    expect(parsed.entries).to.deep.equal([
      { name: 'Lightning Bolt', quantity: 4, section: 'mainboard', line: 2 },
      { name: 'Blood Moon', quantity: 2, section: 'sideboard', line: 5 },
    ]);
    expect(parseDeckText('4 Lightning Bolt\r2 Lava Spike').entries.map((entry) => entry.line)).to.deep.equal([1, 2]);
  });

  it('keeps duplicate lines apart (merging is mergeEntries\' job, after lookup)', () => {
    const parsed = parseDeckText('2 Lightning Bolt\n2 lightning bolt\n1 Lightning Bolt (2XM) 141');
    expect(summary(parsed)).to.deep.equal([
      [2, 'Lightning Bolt', 'mainboard'],
      [2, 'lightning bolt', 'mainboard'],
      [1, 'Lightning Bolt', 'mainboard'],
    ]);
  });

  it('reports lines it cannot understand, with their line numbers, and goes on', () => {
    const text = [
      '4 Lightning Bolt',
      '0 Bolt',
      'abc x',
      '100 Mountain',
      '4',
      '4x',
      '-1 Lava Spike',
      '2.5 Lava Dart',
      '4 ----',
      '3 Chain Lightning',
    ].join('\n');
    const parsed = parseDeckText(text);
    expect(summary(parsed)).to.deep.equal([
      [4, 'Lightning Bolt', 'mainboard'],
      [3, 'Chain Lightning', 'mainboard'],
    ]);
    expect(parsed.problems.map((problem) => [problem.line, problem.text])).to.deep.equal([
      [2, '0 Bolt'],
      [3, 'abc x'],
      [4, '100 Mountain'],
      [5, '4'],
      [6, '4x'],
      [7, '-1 Lava Spike'],
      [8, '2.5 Lava Dart'],
      [9, '4 ----'],
    ]);
    expect(parsed.problems[0].reason).to.match(/0/);
    expect(parsed.problems[2].reason).to.match(/over 99/);
    for (const problem of parsed.problems) expect(problem.reason).to.be.a('string').and.not.be.empty;
  });

  it('still applies the blank-line rule when the only marker is a Companion header', () => {
    const text = `Companion\n1 Lurrus of the Dream-Den\n\n${MTGO_EXPORT}`;
    const parsed = parseDeckText(text);
    expect(total(parsed, 'mainboard')).to.equal(60);
    expect(total(parsed, 'sideboard')).to.equal(16);
  });

  it('reports a line too long to be a card line', () => {
    const parsed = parseDeckText(`4 Lightning Bolt\n4 ${'Very '.repeat(120)}Long Name`);
    expect(parsed.entries).to.have.length(1);
    expect(parsed.problems.map((problem) => [problem.line, problem.reason])).to.deep.equal([
      [2, 'The line is over 500 characters: too long for a card line.'],
    ]);
  });

  // How fast is measured by bench:meta (deck_parsing); a catastrophic slowdown would hit mocha's timeout here.
  it('parses hostile text at the size limits', () => {
    for (const text of HOSTILE_DECK_TEXTS) expect(parseDeckText(text)).to.be.an('object');
  });

  it('accepts 99 copies and rejects 100', () => {
    expect(summary(parseDeckText('99 Relentless Rats'))).to.deep.equal([[99, 'Relentless Rats', 'mainboard']]);
    expect(parseDeckText('100 Relentless Rats').problems).to.have.length(1);
  });

  it('returns nothing for empty or blank text', () => {
    for (const text of ['', '\n\n', '  \t \r\n ']) expect(parseDeckText(text)).to.deep.equal({ entries: [], problems: [] });
  });

  it('throws a DeckTextError for text over the size limits', () => {
    const long = 'x'.repeat(DECK_TEXT_LIMITS.maxChars + 1);
    expect(() => parseDeckText(long)).to.throw(DeckTextError, /100,001 characters.*100,000/);
    const manyLines = Array.from({ length: DECK_TEXT_LIMITS.maxLines + 1 }, () => '1 Island').join('\n');
    expect(() => parseDeckText(manyLines)).to.throw(DeckTextError, /1,001.*1,000/);
    const exactlyMax = `${Array.from({ length: DECK_TEXT_LIMITS.maxLines }, () => '1 Island').join('\n')}\n`;
    expect(parseDeckText(exactlyMax).entries).to.have.length(DECK_TEXT_LIMITS.maxLines);
    try {
      parseDeckText(long);
    } catch (error) {
      expect(error).to.be.instanceOf(Error);
      expect((error as Error).name).to.equal('DeckTextError');
    }
  });

  it('never throws on text within the limits, and every entry is a sane card line', () => {
    const deckish = fc.array(
      fc.oneof(
        fc.constantFrom('', 'Sideboard', 'SB: 2 Blood Moon', '4 Lightning Bolt (2XM) 141 *F*', '// Creatures', 'Companion', 'x', '0 Bolt'),
        fc.string({ maxLength: 40 }),
        fc.tuple(fc.nat({ max: 120 }), fc.string({ maxLength: 30 })).map(([quantity, name]) => `${quantity} ${name}`),
      ),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(deckish, fc.constantFrom('\n', '\r\n'), (lines, newline) => {
        const parsed = parseDeckText(lines.join(newline));
        for (const entry of parsed.entries) {
          expect(entry.quantity).to.be.within(1, DECK_TEXT_LIMITS.maxQuantity);
          expect(Number.isInteger(entry.quantity)).to.be.true;
          expect(cardLookupKey(entry.name)).not.to.equal('');
          expect(entry.name).to.equal(entry.name.trim());
          expect(entry.line).to.be.within(1, lines.length);
        }
        for (const problem of parsed.problems) expect(problem.line).to.be.within(1, lines.length);
      }),
    );
  });
});

describe('stripPrintingDetails', () => {
  it('removes what exporters add around a card name', () => {
    const cases: Array<[string, string]> = [
      ['Lightning Bolt (2XM) 141', 'Lightning Bolt'],
      ['Fable of the Mirror-Breaker (NEO) 141a', 'Fable of the Mirror-Breaker'],
      ['Sheoldred, the Apocalypse (DMU) 107 *F*', 'Sheoldred, the Apocalypse'],
      ['Lightning Bolt (PLST) 2XM-141 *E*', 'Lightning Bolt'],
      ['Lightning Bolt [2XM]', 'Lightning Bolt'],
      ['Lightning Bolt (2xm) 141 [Removal] ^Have,#37d67a^', 'Lightning Bolt'],
      ['Lightning Bolt #Removal #!Burn', 'Lightning Bolt'],
      ['Lightning Bolt|2XM|1', 'Lightning Bolt'],
      ['[M10:146] Lightning Bolt', 'Lightning Bolt'],
      ['[EMN] Emrakul, the Promised End', 'Emrakul, the Promised End'],
      ['Lightning Bolt (2XM)', 'Lightning Bolt'],
      ['B.F.M. (Big Furry Monster)', 'B.F.M. (Big Furry Monster)'],
      ['Fire // Ice', 'Fire // Ice'],
    ];
    for (const [typed, name] of cases) expect(stripPrintingDetails(typed), typed).to.equal(name);
  });
});

describe('mergeEntries', () => {
  const entry = (name: string, quantity: number, section: DeckEntry['section'], line: number): DeckEntry => ({ name, quantity, section, line });

  it('sums the same card in the same section, keeping the first name, line and order', () => {
    const entries = [
      entry('Lightning Bolt', 2, 'mainboard', 1),
      entry('Blood Moon', 1, 'sideboard', 2),
      entry('lightning bolt', 2, 'mainboard', 3),
      entry('Lightning Bolt', 1, 'sideboard', 4),
      entry('Blood Moon', 1, 'sideboard', 5),
    ];
    expect(mergeEntries(entries, (each) => cardLookupKey(each.name))).to.deep.equal([
      entry('Lightning Bolt', 4, 'mainboard', 1),
      entry('Blood Moon', 2, 'sideboard', 2),
      entry('Lightning Bolt', 1, 'sideboard', 4),
    ]);
    expect(entries[0].quantity, 'the input is left alone').to.equal(2);
  });

  it('keeps the extra fields of the entries it is given', () => {
    const looked = [
      { ...entry('Fire/Ice', 1, 'mainboard', 1), cardId: 7 },
      { ...entry('Fire // Ice', 2, 'mainboard', 2), cardId: 7 },
    ];
    expect(mergeEntries(looked, (each) => String(each.cardId))).to.deep.equal([{ ...entry('Fire/Ice', 3, 'mainboard', 1), cardId: 7 }]);
  });

  it('keeps the total per section whatever the keys', () => {
    const entries = fc.array(
      fc.record({
        name: fc.constantFrom('A', 'a', 'B', 'C'),
        quantity: fc.integer({ min: 1, max: 99 }),
        section: fc.constantFrom('mainboard' as const, 'sideboard' as const),
        line: fc.nat(),
      }),
    );
    fc.assert(
      fc.property(entries, (list) => {
        const merged = mergeEntries(list, (each) => each.name.toLowerCase());
        for (const section of ['mainboard', 'sideboard'] as const) {
          const sum = (of: DeckEntry[]) => of.filter((each) => each.section === section).reduce((acc, each) => acc + each.quantity, 0);
          expect(sum(merged)).to.equal(sum(list));
        }
        const keys = merged.map((each) => `${each.section}:${each.name.toLowerCase()}`);
        expect(new Set(keys).size).to.equal(keys.length);
      }),
    );
  });
});
