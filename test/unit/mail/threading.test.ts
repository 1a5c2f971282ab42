/** Threading: subject normalisation, Message-ID parsing, reply headers, the order of thread candidates, and a thread as Markdown. */
import { expect } from 'chai';
import { threadAsMarkdown } from '../../../actors/mail/thread-markdown.js';
import {
  THREAD_SUBJECT_WINDOW_MS,
  messageIdsIn,
  newMessageId,
  normalizeSubject,
  participantsKey,
  replyHeaders,
  threadCandidates,
} from '../../../actors/mail/threading.js';

describe('mail threading', function () {
  describe('normalizeSubject', function () {
    it('strips any number of reply and forward prefixes in any case', function () {
      for (const subject of ['Budget', 'Re: Budget', 'RE: Budget', 'Fwd: Budget', 'FW: Budget', 'Aw: Budget', 'Sv: Budget', 'Re: Re: FW: re:Budget', 'Re[2]: Budget', 'RE : Budget']) {
        expect(normalizeSubject(subject), subject).to.equal('budget');
      }
    });

    it('strips list tags mixed with prefixes, collapses whitespace and case-folds', function () {
      expect(normalizeSubject('[troupe-dev] Re: [ops]  Q3   Budget ')).to.equal('q3 budget');
      expect(normalizeSubject('Re: [troupe-dev] Fwd:\tQ3 Budget')).to.equal('q3 budget');
    });

    it('keeps prefixes that are part of the words', function () {
      expect(normalizeSubject('Regarding the budget')).to.equal('regarding the budget');
      expect(normalizeSubject('Review: budget')).to.equal('review: budget');
      expect(normalizeSubject('Budget re: Q3')).to.equal('budget re: q3');
    });

    it('leaves nothing of a subject that is only prefixes', function () {
      expect(normalizeSubject('Re: ')).to.equal('');
      expect(normalizeSubject('')).to.equal('');
    });
  });

  describe('messageIdsIn', function () {
    it('reads bracketed ids in order, each once', function () {
      expect(messageIdsIn('<a@x.com> <b@x.com>\r\n <a@x.com>,<c.1@y.org>')).to.deep.equal(['<a@x.com>', '<b@x.com>', '<c.1@y.org>']);
    });

    it('reads an array of header values, as mailparser gives References', function () {
      expect(messageIdsIn(['<a@x.com>', '<b@x.com> <a@x.com>'])).to.deep.equal(['<a@x.com>', '<b@x.com>']);
    });

    it('accepts ids written without brackets, and nothing for an absent or empty header', function () {
      expect(messageIdsIn('a@x.com b@x.com')).to.deep.equal(['<a@x.com>', '<b@x.com>']);
      expect(messageIdsIn(undefined)).to.deep.equal([]);
      expect(messageIdsIn('')).to.deep.equal([]);
      expect(messageIdsIn('no ids here')).to.deep.equal([]);
    });
  });

  describe('participantsKey', function () {
    it('is the same for the same people in any order, case or display form', function () {
      const key = participantsKey(['Bob@Example.com', 'alice@example.com', 'Alice <ALICE@example.com>']);
      expect(key).to.equal('alice@example.com,bob@example.com');
      expect(participantsKey(['bob@example.com', 'alice@example.com'])).to.equal(key);
      expect(participantsKey(['bob@example.com', 'carol@example.com'])).not.to.equal(key);
    });
  });

  describe('newMessageId', function () {
    it('makes a bracketed id at the domain, different every time', function () {
      const ids = new Set(Array.from({ length: 100 }, () => newMessageId('Troupe.Local')));
      expect(ids.size).to.equal(100);
      for (const id of ids) expect(id).to.match(/^<[0-9a-z]+\.[0-9a-f]{24}@troupe\.local>$/);
      expect(messageIdsIn([...ids][0])).to.deep.equal([[...ids][0]]);
    });
  });

  describe('replyHeaders', function () {
    it('replies to the parent and appends it to its references', function () {
      expect(replyHeaders({ messageId: '<c@x>', references: ['<a@x>', '<b@x>'] })).to.deep.equal({
        inReplyTo: '<c@x>',
        references: ['<a@x>', '<b@x>', '<c@x>'],
      });
    });

    it('chains through a conversation: each reply references everything before it', function () {
      let parent = { messageId: '<m0@x>', references: [] as string[] };
      for (let i = 1; i <= 3; i += 1) {
        const headers = replyHeaders(parent);
        expect(headers.inReplyTo).to.equal(`<m${i - 1}@x>`);
        parent = { messageId: `<m${i}@x>`, references: headers.references };
      }
      expect(parent.references).to.deep.equal(['<m0@x>', '<m1@x>', '<m2@x>']);
    });

    it('deduplicates and keeps only the latest 20, the parent last', function () {
      const references = Array.from({ length: 30 }, (_, i) => `<r${i}@x>`);
      const headers = replyHeaders({ messageId: '<r5@x>', references: [...references, '<r29@x>'] });
      expect(headers.references).to.have.length(20);
      expect(headers.references.at(-1)).to.equal('<r5@x>');
      expect(new Set(headers.references).size).to.equal(20);
      expect(headers.references[0]).to.equal('<r11@x>');
    });
  });

  describe('threadCandidates', function () {
    const date = new Date('2024-03-31T12:00:00Z');

    it('looks up In-Reply-To first, then References newest first, then subject and participants', function () {
      const candidates = threadCandidates({
        inReplyTo: '<c@x>',
        references: ['<a@x>', '<b@x>', '<c@x>'],
        subject: 'Re: [team] Budget',
        participants: ['Bob@x.com', 'alice@x.com'],
        date,
      });
      expect(candidates.byMessageIds).to.deep.equal(['<c@x>', '<b@x>', '<a@x>']);
      expect(candidates.bySubject).to.deep.equal({
        normalizedSubject: 'budget',
        participantsKey: 'alice@x.com,bob@x.com',
        since: new Date('2024-03-01T12:00:00Z'),
      });
    });

    it('puts In-Reply-To first even when it is not the newest reference', function () {
      const candidates = threadCandidates({ inReplyTo: '<a@x>', references: ['<a@x>', '<b@x>'], subject: 'x', participants: [], date });
      expect(candidates.byMessageIds).to.deep.equal(['<a@x>', '<b@x>']);
    });

    it('has no Message-IDs for a first message, only the subject lookup', function () {
      const candidates = threadCandidates({ references: [], subject: 'Hello', participants: ['a@x.com'], date });
      expect(candidates.byMessageIds).to.deep.equal([]);
      expect(candidates.bySubject?.normalizedSubject).to.equal('hello');
    });

    it('has no subject lookup when the subject normalizes to nothing', function () {
      expect(threadCandidates({ references: [], subject: 'Re:', participants: ['a@x.com'], date }).bySubject).to.be.null;
    });

    it('uses a 30-day window', function () {
      expect(THREAD_SUBJECT_WINDOW_MS).to.equal(30 * 24 * 60 * 60 * 1000);
    });
  });

  describe('threadAsMarkdown', function () {
    const thread = { subject: 'Re: Q3 budget', participants: ['alice@example.com', 'support@troupe.local'] };
    const reply = {
      from: 'support@troupe.local',
      to: ['alice@example.com'],
      date: new Date('2024-01-08T11:00:00.250Z'),
      content: 'Approved. See the **table**.',
      direction: 'outbound' as const,
    };
    const question = {
      from: 'Alice <alice@example.com>',
      to: ['support@troupe.local', 'bob@example.com'],
      date: new Date('2024-01-08T10:15:00Z'),
      content: 'Please approve the budget.\n',
      direction: 'inbound' as const,
    };

    it('writes the subject heading, participants, then each message oldest first between rules', function () {
      expect(threadAsMarkdown(thread, [reply, question])).to.equal(
        [
          '# Re: Q3 budget',
          '',
          '**Participants:** alice@example.com, support@troupe.local  ',
          '**Messages:** 2',
          '',
          '---',
          '',
          '**From:** Alice <alice@example.com> (received)  ',
          '**To:** support@troupe.local, bob@example.com  ',
          '**Date:** 2024-01-08T10:15:00Z',
          '',
          'Please approve the budget.',
          '',
          '---',
          '',
          '**From:** support@troupe.local (sent)  ',
          '**To:** alice@example.com  ',
          '**Date:** 2024-01-08T11:00:00Z',
          '',
          'Approved. See the **table**.',
          '',
        ].join('\n'),
      );
    });

    it('contains no HTML and keeps a heading on one line', function () {
      const markdown = threadAsMarkdown({ subject: 'Two\nlines', participants: [] }, [{ ...question, from: 'alice@example.com', content: '' }]);
      expect(markdown.startsWith('# Two lines\n')).to.be.true;
      expect(markdown).to.contain('**Participants:** (none)');
      expect(markdown).to.contain('_(no content)_');
      expect(markdown).not.to.match(/<\/?[a-z][^>]*>/i);
    });

    it('names an empty subject', function () {
      expect(threadAsMarkdown({ subject: '  ', participants: [] }, [])).to.match(/^# \(no subject\)\n/);
    });
  });
});
