import { expect } from 'chai';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { cardLookupKey, cardLookupKeys } from '../../../models/mtg/card-lookup-key.js';
import { MTG_DATA_DIR } from '../../../models/mtg/dataset-files.js';
import { CardMatcher, type CatalogueCard } from '../../../actors/meta/card-matcher.js';
import { HOSTILE_NAMES } from '../../../scripts/bench/deck-parsing.js';

interface TestCard extends CatalogueCard {
  id: number;
}

function card(id: number, name: string, fullName: string | null = null): TestCard {
  return { id, name, full_name: fullName, lookup_keys: cardLookupKeys(name, fullName) };
}

const CATALOGUE: TestCard[] = [
  card(1, 'Lightning Bolt'),
  card(2, 'Lightning Helix'),
  card(3, 'Fable of the Mirror-Breaker', 'Fable of the Mirror-Breaker // Reflection of Kiki-Jiki'),
  card(4, 'Fire // Ice'),
  card(5, "Lim-Dûl's Vault"),
  card(6, 'Æther Vial'),
  card(7, 'Aetherize'),
  card(8, 'Ragavan, Nimble Pilferer'),
  card(9, 'Sheoldred, the Apocalypse'),
  card(10, "Sheoldred's Edict"),
  card(11, 'Thoughtseize'),
  card(12, 'Counterspell'),
  card(13, 'Bonecrusher Giant', 'Bonecrusher Giant // Stomp'),
  card(14, 'Bottomless Pool // Locker Room'),
  // The dataset has both of these: a card's own name must win over another card's full name.
  card(15, 'Jadzi, Steward of Fate', "Jadzi, Steward of Fate // Oracle's Gift"),
  card(16, "Jadzi, Steward of Fate // Oracle's Gift"),
  card(17, 'Swords to Plowshares'),
  card(18, 'Emeritus of Truce // Swords to Plowshares'),
  card(19, 'Emeritus of Truce'),
  card(20, 'Mox Ruby'),
  card(21, 'Mox Opal'),
  card(22, 'Éowyn, Fearless Knight'),
  card(23, 'Jötun Grunt'),
  card(24, 'B.F.M. (Big Furry Monster)'),
  card(25, 'Kiki-Jiki, Mirror Breaker'),
];

describe('CardMatcher.find', () => {
  const matcher = new CardMatcher(CATALOGUE);
  const idOf = (typed: string): number | undefined => matcher.find(typed)?.id;

  it('finds a card by its name in any case, with or without punctuation, spaces and accents', () => {
    for (const typed of ['Lightning Bolt', 'lightning bolt', 'LIGHTNING BOLT', 'lightningbolt', ' Lightning  Bolt ']) {
      expect(idOf(typed), typed).to.equal(1);
    }
    for (const typed of ["Lim-Dûl's Vault", "Lim-Dul's Vault", 'lim duls vault', 'LIM-DUL’S VAULT']) expect(idOf(typed), typed).to.equal(5);
    expect(idOf('Eowyn, Fearless Knight')).to.equal(22);
    expect(idOf('Jotun Grunt')).to.equal(23);
    expect(idOf('B.F.M. (Big Furry Monster)')).to.equal(24);
  });

  it('returns the catalogue\'s own object, typed as given', () => {
    const found = matcher.find('Counterspell');
    expect(found).to.equal(CATALOGUE[11]);
    expect(found?.id).to.equal(12);
  });

  it('treats "AE" and "Æ" as the same letters, both ways', () => {
    for (const typed of ['AEther Vial', 'Aether Vial', 'Æther Vial', 'æther vial', 'aethervial']) expect(idOf(typed), typed).to.equal(6);
    for (const typed of ['Aetherize', 'Ætherize', 'ÆTHERIZE']) expect(idOf(typed), typed).to.equal(7);
  });

  it('finds double-faced and adventure cards by front face or full name, in any spelling', () => {
    for (const typed of [
      'Fable of the Mirror-Breaker',
      'Fable of the Mirror-Breaker // Reflection of Kiki-Jiki',
      'Fable of the Mirror-Breaker/Reflection of Kiki-Jiki',
      'fable of the mirror breaker / reflection of kiki jiki',
      'Fable of the Mirror-Breaker // Reflection of Kiki Jikki', // a typo in the back face: the front still says it
    ]) {
      expect(idOf(typed), typed).to.equal(3);
    }
    expect(idOf('Bonecrusher Giant // Stomp')).to.equal(13);
    expect(idOf('Bonecrusher Giant')).to.equal(13);
  });

  it('finds split cards written with // or / and by the first half of the name', () => {
    for (const typed of ['Fire // Ice', 'Fire/Ice', 'fire / ice', 'FIRE//ICE', 'Fire']) expect(idOf(typed), typed).to.equal(4);
    expect(idOf('Bottomless Pool')).to.equal(14);
  });

  it('prefers a card\'s own name when names collide', () => {
    expect(idOf('Jadzi, Steward of Fate')).to.equal(15);
    expect(idOf("Jadzi, Steward of Fate // Oracle's Gift")).to.equal(16);
    expect(idOf('Emeritus of Truce')).to.equal(19);
    expect(idOf('Emeritus of Truce // Swords to Plowshares')).to.equal(18);
    expect(idOf('Swords to Plowshares')).to.equal(17);
    expect(idOf('Emeritus of Truce/Swords to Plowshares')).to.equal(18);
  });

  it('ignores set codes and collector numbers the parser left on the name', () => {
    for (const typed of [
      'Lightning Bolt (2XM) 141',
      'Lightning Bolt (2XM) 141 *F*',
      'Lightning Bolt [2XM]',
      'Lightning Bolt 2XM 141',
      'Lightning Bolt PLST 2XM-141a',
      'Lightning Bolt #Burn',
      'Fire // Ice (MH2) 290',
    ]) {
      expect(matcher.find(typed)?.name, typed).to.be.oneOf(['Lightning Bolt', 'Fire // Ice']);
    }
  });

  // How fast is measured by bench:meta (deck_parsing); a catastrophic slowdown would hit mocha's timeout here.
  it('answers hostile names', () => {
    for (const typed of HOSTILE_NAMES) {
      expect(matcher.find(typed)).to.be.undefined;
      expect(matcher.suggest(typed)).to.be.an('array');
    }
  });

  it('finds nothing for unknown, empty or punctuation-only names', () => {
    for (const typed of ['Lightning Bolts', 'Black Lotus', '', '   ', '---', '//', 'Reflection of Kiki-Jiki']) {
      expect(matcher.find(typed), typed).to.be.undefined;
    }
  });

  it('finds every catalogue card by its own name, in any case and with punctuation and spaces dropped', () => {
    const ownFullNames = CATALOGUE.filter(
      (each) => each.full_name && !CATALOGUE.some((other) => other !== each && cardLookupKey(other.name) === cardLookupKey(each.full_name!)),
    );
    const typedName = fc
      .oneof(
        fc.constantFrom(...CATALOGUE).map((each) => ({ card: each, text: each.name })),
        fc.constantFrom(...ownFullNames).map((each) => ({ card: each, text: each.full_name! })),
      )
      .chain(({ card: expected, text }) =>
        fc
          .array(fc.tuple(fc.boolean(), fc.boolean()), { minLength: text.length, maxLength: text.length })
          .map((choices) => ({
            card: expected,
            typed: [...text]
              .map((char, index) => {
                const [upper, drop] = choices[index] ?? [false, false];
                if (drop && !/[\p{L}\p{N}]/u.test(char)) return '';
                return upper ? char.toUpperCase() : char.toLowerCase();
              })
              .join(''),
          })),
      );
    fc.assert(
      fc.property(typedName, ({ card: expected, typed }) => {
        expect(matcher.find(typed), typed).to.equal(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe('CardMatcher.suggest', () => {
  const matcher = new CardMatcher(CATALOGUE);

  it('suggests names a few typos away, best first', () => {
    expect(matcher.suggest('Lightnig Bolt')[0]).to.equal('Lightning Bolt');
    expect(matcher.suggest('Thoughtsieze')[0]).to.equal('Thoughtseize');
    expect(matcher.suggest('counterspel')).to.deep.equal(['Counterspell']);
    expect(matcher.suggest('Lightnig Bolt (2XM) 141')[0]).to.equal('Lightning Bolt');
    expect(matcher.suggest('Ather Vial')[0]).to.equal('Æther Vial');
  });

  it('suggests names that start with or contain a partial name', () => {
    expect(matcher.suggest('ragavan')).to.deep.equal(['Ragavan, Nimble Pilferer']);
    expect(matcher.suggest('Sheoldred')).to.deep.equal(['Sheoldred, the Apocalypse', "Sheoldred's Edict"]);
    expect(matcher.suggest('Fable')[0]).to.equal('Fable of the Mirror-Breaker');
    expect(matcher.suggest('Reflection of Kiki-Jiki')).to.deep.equal(['Fable of the Mirror-Breaker']);
    expect(matcher.suggest('kiki jiki')[0]).to.equal('Kiki-Jiki, Mirror Breaker');
  });

  it('breaks ties by name, whatever the catalogue order', () => {
    expect(matcher.suggest('mox')).to.deep.equal(['Mox Opal', 'Mox Ruby']);
    const reversed = new CardMatcher([...CATALOGUE].reverse());
    for (const typed of ['mox', 'lightning', 'Lightnig Bolt', 'sheoldred', 'fable', 'jadzi', 'emeritus', 'x']) {
      expect(reversed.suggest(typed, 10), typed).to.deep.equal(matcher.suggest(typed, 10));
    }
  });

  it('respects the limit and suggests nothing for names unlike any card', () => {
    expect(matcher.suggest('lightning', 1)).to.deep.equal(['Lightning Bolt']);
    expect(matcher.suggest('lightning', 0)).to.deep.equal([]);
    expect(matcher.suggest('lightning')).to.have.length.at.most(3);
    expect(matcher.suggest('Xyzzy Quux Frobnicator')).to.deep.equal([]);
    expect(matcher.suggest('')).to.deep.equal([]);
    expect(matcher.suggest('!!!')).to.deep.equal([]);
  });

  it('names each card once', () => {
    const suggestions = matcher.suggest('Jadzi, Steward of Fate // Oracles Gift', 10);
    expect(new Set(suggestions).size).to.equal(suggestions.length);
    expect(suggestions).to.include.members(['Jadzi, Steward of Fate', "Jadzi, Steward of Fate // Oracle's Gift"]);
  });
});

describe('CardMatcher on the shipped card catalogue', () => {
  // The real ~6,500 cards: what get_enriched_deck builds its matcher from.
  const raw = JSON.parse(gunzipSync(readFileSync(join(MTG_DATA_DIR, 'cards.json.gz'))).toString('utf8')) as Array<{
    name: string;
    full_name?: string | null;
  }>;
  const catalogue = raw.map((each) => ({ name: each.name, full_name: each.full_name ?? null, lookup_keys: cardLookupKeys(each.name, each.full_name) }));
  const matcher = new CardMatcher(catalogue);

  it('finds every card by its name', () => {
    for (const each of catalogue) expect(matcher.find(each.name), each.name).to.equal(each);
  });

  it('suggests the card behind each of 100 unmatched names (timed by bench:meta)', () => {
    const typos = Array.from({ length: 100 }, (_, index) => {
      const name = catalogue[(index * 61) % catalogue.length].name;
      return `${name.slice(0, -2)}qz`;
    });
    const found = typos.filter((typo, index) => matcher.suggest(typo).includes(catalogue[(index * 61) % catalogue.length].name));
    expect(found.length).to.be.greaterThan(90);
  });

  it('suggests the intended card for common misspellings', () => {
    expect(matcher.suggest('ragavan')[0]).to.equal('Ragavan, Nimble Pilferer');
    expect(matcher.suggest('thoughtsieze')[0]).to.equal('Thoughtseize');
    expect(matcher.suggest('tarmogoyff')[0]).to.equal('Tarmogoyf');
    expect(matcher.suggest('lightnig bolt')[0]).to.equal('Lightning Bolt');
  });
});
