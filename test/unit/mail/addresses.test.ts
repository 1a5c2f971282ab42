/** Mail addresses: the username rule, header parsing, and the domain allow/block policy. */
import { expect } from 'chai';
import {
  USERNAME_PATTERN,
  USERNAME_RULE,
  addressOf,
  domainOf,
  domainPolicy,
  isValidUsername,
  parseAddress,
  parseAddressList,
} from '../../../actors/mail/addresses.js';

describe('mail addresses', function () {
  describe('usernames', function () {
    it('accepts lowercase letters, digits, dots, underscores and hyphens inside letters or digits', function () {
      for (const username of ['a', '7', 'support', 'jane.doe', 'build_bot-2', 'a1', 'x'.repeat(64)]) {
        expect(isValidUsername(username), username).to.be.true;
      }
    });

    it('rejects empty, too long, uppercase, edge punctuation, double dots and other characters', function () {
      const invalid = ['', 'x'.repeat(65), 'Support', '.jane', 'jane.', '-bot', 'bot_', 'jane..doe', 'a b', 'a+b', 'é', 'a@b'];
      for (const username of invalid) expect(isValidUsername(username), JSON.stringify(username)).to.be.false;
    });

    it('exports the pattern and a rule sentence that names its limits', function () {
      expect(USERNAME_PATTERN.test('support')).to.be.true;
      expect(USERNAME_RULE).to.match(/1 to 64/).and.to.match(/lowercase/).and.to.match(/two dots/);
    });

    it('builds the lowercase address of an inbox', function () {
      expect(addressOf('support', 'Troupe.Local')).to.equal('support@troupe.local');
    });
  });

  describe('parseAddress', function () {
    it('reads a display name and lowercases the address', function () {
      expect(parseAddress('Jane Doe <Jane.Doe@Example.COM>')).to.deep.equal({ address: 'jane.doe@example.com', name: 'Jane Doe' });
    });

    it('unquotes a quoted name, keeping its comma and escaped quotes', function () {
      expect(parseAddress('"Doe, Jane \\"JD\\"" <jd@example.com>')).to.deep.equal({ address: 'jd@example.com', name: 'Doe, Jane "JD"' });
    });

    it('takes bare and bracketed addresses without a name', function () {
      expect(parseAddress(' bob@example.com ')).to.deep.equal({ address: 'bob@example.com' });
      expect(parseAddress('<bob@example.com>')).to.deep.equal({ address: 'bob@example.com' });
      expect(parseAddress('"" <bob@example.com>')).to.deep.equal({ address: 'bob@example.com' });
    });

    it('reads the old comment form', function () {
      expect(parseAddress('bob@example.com (Bob B)')).to.deep.equal({ address: 'bob@example.com', name: 'Bob B' });
    });

    it('returns null for anything that is not one valid address', function () {
      const invalid = ['', 'bob', '@example.com', 'bob@', 'bob@@example.com', 'bo b@example.com', '.bob@example.com', 'bob..b@example.com', 'bob@-example.com', 'bob@example..com', 'Bob <not an address>', `${'x'.repeat(65)}@example.com`];
      for (const text of invalid) expect(parseAddress(text), JSON.stringify(text)).to.be.null;
    });
  });

  describe('parseAddressList', function () {
    it('splits on commas and semicolons outside quotes, skipping invalid entries and repeats', function () {
      const list = parseAddressList('"Doe, Jane" <jane@example.com>, bob@example.com; nonsense, BOB@example.com , Carol <carol@example.org>');
      expect(list).to.deep.equal([
        { address: 'jane@example.com', name: 'Doe, Jane' },
        { address: 'bob@example.com' },
        { address: 'carol@example.org', name: 'Carol' },
      ]);
    });

    it('gives an empty list for an empty header', function () {
      expect(parseAddressList('')).to.deep.equal([]);
      expect(parseAddressList(' , ; ')).to.deep.equal([]);
    });
  });

  describe('domains', function () {
    it('finds the lowercase domain of an address', function () {
      expect(domainOf('bob@Mail.Example.com')).to.equal('mail.example.com');
      expect(domainOf('no-domain')).to.equal('');
    });

    it('admits everything when both lists are empty', function () {
      expect(domainPolicy('bob@example.com', { allow: [], block: [] })).to.deep.equal({ ok: true });
    });

    it('rejects blocked domains and their subdomains, case-insensitively', function () {
      const policy = { allow: [], block: ['Spam.example'] };
      for (const address of ['x@spam.example', 'x@MAIL.SPAM.EXAMPLE']) {
        const verdict = domainPolicy(address, policy);
        expect(verdict.ok, address).to.be.false;
        if (!verdict.ok) expect(verdict.reason).to.match(/blocked/);
      }
      expect(domainPolicy('x@notspam.example', policy).ok).to.be.true;
    });

    it('admits only allow-listed domains (and subdomains) when the allow list is not empty', function () {
      const policy = { allow: ['example.com', '@partner.org'], block: [] };
      expect(domainPolicy('a@example.com', policy).ok).to.be.true;
      expect(domainPolicy('a@eu.mail.example.com', policy).ok).to.be.true;
      expect(domainPolicy('a@partner.org', policy).ok).to.be.true;
      const outside = domainPolicy('a@badexample.com', policy);
      expect(outside.ok).to.be.false;
      if (!outside.ok) expect(outside.reason).to.match(/allow list/);
    });

    it('lets the block list win over the allow list', function () {
      const verdict = domainPolicy('a@lab.example.com', { allow: ['example.com'], block: ['lab.example.com'] });
      expect(verdict).to.deep.equal({ ok: false, reason: 'the domain lab.example.com is blocked' });
    });

    it('rejects an address without a domain', function () {
      expect(domainPolicy('nobody', { allow: [], block: [] }).ok).to.be.false;
    });
  });
});
