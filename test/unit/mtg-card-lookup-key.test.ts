import { expect } from 'chai';
import { cardLookupKey, cardLookupKeys } from '../../models/mtg/card-lookup-key.js';

describe('cardLookupKey', () => {
  it('ignores case, accents, punctuation and spaces', () => {
    for (const typed of ["Lim-Dûl's Vault", 'lim duls vault', 'LIM-DUL\'S VAULT', 'Lim Dul’s Vault']) {
      expect(cardLookupKey(typed), typed).to.equal('limdulsvault');
    }
    expect(cardLookupKey('Fire // Ice')).to.equal(cardLookupKey('fire/ice'));
    expect(cardLookupKey('Éowyn, Fearless Knight')).to.equal('eowynfearlessknight');
  });

  it('keeps letters of other scripts', () => {
    expect(cardLookupKey('단서 // 단서 토큰')).to.equal('단서단서토큰');
  });

  it('adds the full name of a double-faced card once', () => {
    expect(cardLookupKeys('Fire // Ice', null)).to.deep.equal(['fireice']);
    expect(cardLookupKeys('Fire // Ice', 'Fire // Ice')).to.deep.equal(['fireice']);
    expect(cardLookupKeys('Aang, Swift Savior', "Aang, Swift Savior // Aang and La, Ocean's Fury")).to.deep.equal([
      'aangswiftsavior',
      'aangswiftsavioraangandlaoceansfury',
    ]);
  });
});
