/** Incoming bodies: HTML to Markdown, and content_clean without quoted history or signature. */
import { expect } from 'chai';
import { cleanContent, htmlToMarkdown, inboundContent } from '../../../actors/mail/inbound-body.js';

const GMAIL_TEXT = `Sounds good, see you Tuesday.

On Mon, Jan 8, 2024 at 10:15 AM Alice Example <alice@example.com>
wrote:

> Shall we meet Tuesday?
>
> Alice
`;

const GMAIL_HTML =
  '<div dir="ltr">Sounds good, see you <b>Tuesday</b>.<div><br></div><div>-- <br>Bob Builder<br>CTO, Example</div></div><br>' +
  '<div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, Jan 8, 2024 at 10:15 AM Alice Example &lt;' +
  '<a href="mailto:alice@example.com">alice@example.com</a>&gt; wrote:<br></div>' +
  '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex"><div dir="ltr">Shall we meet Tuesday?</div></blockquote></div>';

const OUTLOOK_TEXT = `Works for me, I booked room 4.

________________________________
From: Alice Example <alice@example.com>
Sent: Monday, January 8, 2024 10:15 AM
To: Bob Builder <bob@example.com>
Subject: Meeting

Shall we meet Tuesday?
`;

const OUTLOOK_HTML =
  '<html><head><style>p { color: red }</style><title>Meeting</title></head><body>' +
  '<div>Works for me, I booked room 4.</div><div id="appendonsend"></div><hr style="display:inline-block;width:98%">' +
  '<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri"><b>From:</b> Alice Example &lt;alice@example.com&gt;<br>' +
  '<b>Sent:</b> Monday, January 8, 2024 10:15 AM<br><b>To:</b> Bob Builder &lt;bob@example.com&gt;<br><b>Subject:</b> Meeting</font></div>' +
  '<div>Shall we meet Tuesday?</div><script>track()</script></body></html>';

const OUTLOOK_ORIGINAL_MESSAGE = `Approved.

-----Original Message-----
From: Alice Example
Sent: Monday, January 8, 2024 10:15 AM
Subject: Budget

Please approve the budget.
`;

const APPLE_TEXT = `Yes, that works.

Sent from my iPhone

> On 8 Jan 2024, at 10:15, Alice Example <alice@example.com> wrote:
>
> Shall we meet Tuesday?
`;

const APPLE_HTML =
  '<html><body><div>Yes, that works.</div><div><br></div><div>Sent from my iPhone</div>' +
  '<div><br><blockquote type="cite">On 8 Jan 2024, at 10:15, Alice Example &lt;alice@example.com&gt; wrote:<br><br></blockquote></div>' +
  '<blockquote type="cite"><div>Shall we meet Tuesday?</div></blockquote></body></html>';

describe('mail inbound body', function () {
  describe('htmlToMarkdown', function () {
    it('turns structure into Markdown', function () {
      const markdown = htmlToMarkdown(
        '<h2>Agenda</h2><p>Read <a href="https://example.com/doc">the doc</a> and <strong>reply</strong>.</p><ul><li>one</li><li>two</li></ul><pre><code>x = 1</code></pre>',
      );
      expect(markdown).to.equal('## Agenda\n\nRead [the doc](https://example.com/doc) and **reply**.\n\n-   one\n-   two\n\n```\nx = 1\n```');
    });

    it('drops script, style and head content', function () {
      const markdown = htmlToMarkdown(OUTLOOK_HTML);
      expect(markdown).not.to.contain('track()');
      expect(markdown).not.to.contain('color: red');
      expect(markdown).not.to.match(/^Meeting$/m);
      expect(markdown.startsWith('Works for me, I booked room 4.')).to.be.true;
    });
  });

  describe('cleanContent', function () {
    it('trims a Gmail quote whose attribution wraps onto a second line', function () {
      expect(cleanContent(GMAIL_TEXT)).to.equal('Sounds good, see you Tuesday.');
    });

    it('trims an Outlook header block under its underscore separator', function () {
      expect(cleanContent(OUTLOOK_TEXT)).to.equal('Works for me, I booked room 4.');
    });

    it('trims an -----Original Message----- block', function () {
      expect(cleanContent(OUTLOOK_ORIGINAL_MESSAGE)).to.equal('Approved.');
    });

    it('trims an Apple Mail quote and "Sent from my iPhone"', function () {
      expect(cleanContent(APPLE_TEXT)).to.equal('Yes, that works.');
    });

    it('trims a forwarded block', function () {
      const gmailForward = 'FYI, see below.\n\n---------- Forwarded message ---------\nFrom: Alice <alice@example.com>\nDate: Mon, Jan 8, 2024\nSubject: Hello\n\nOriginal body';
      const appleForward = 'FYI, see below.\n\nBegin forwarded message:\n\nFrom: Alice <alice@example.com>\nSubject: Hello\n\nOriginal body';
      expect(cleanContent(gmailForward)).to.equal('FYI, see below.');
      expect(cleanContent(appleForward)).to.equal('FYI, see below.');
    });

    it('trims a "-- " signature and one stripped to "--"', function () {
      expect(cleanContent('Done, merged.\n\n-- \nBob Builder\nCTO, Example\n+1 555 0100')).to.equal('Done, merged.');
      expect(cleanContent('Done, merged.\n--\nBob')).to.equal('Done, merged.');
    });

    it('trims a sign-off that email-reply-parser recognises', function () {
      expect(cleanContent('I appreciate your help with this.\n\nBest regards,\nJohn')).to.equal('I appreciate your help with this.');
    });

    it('keeps a reply written below the quote (bottom-posting)', function () {
      expect(cleanContent('> Can you make Tuesday?\n\nYes, 10am works.')).to.equal('Yes, 10am works.');
    });

    it('leaves a message with no quote or signature whole', function () {
      const message = 'Hi Bob,\n\nOn Monday I wrote down the plan:\n\n1. buy pens\n2. book room 4\n\nFrom: the desk of Alice, with thanks.';
      expect(cleanContent(message)).to.equal(message);
    });

    it('is empty for a bare forward that adds nothing', function () {
      expect(cleanContent('-----Original Message-----\nFrom: Alice\nSubject: x\n\nbody')).to.equal('');
    });
  });

  describe('inboundContent', function () {
    it('uses Markdown from the HTML part and cleans a Gmail HTML reply with its signature', function () {
      const { content, content_clean } = inboundContent({ text: GMAIL_TEXT, html: GMAIL_HTML });
      expect(content).to.contain('see you **Tuesday**.');
      expect(content).to.contain('> Shall we meet Tuesday?');
      expect(content_clean).to.equal('Sounds good, see you **Tuesday**.');
    });

    it('cleans an Outlook HTML reply', function () {
      const { content, content_clean } = inboundContent({ html: OUTLOOK_HTML });
      expect(content).to.contain('**From:** Alice Example <alice@example.com>');
      expect(content_clean).to.equal('Works for me, I booked room 4.');
    });

    it('cleans an Apple Mail HTML reply', function () {
      const { content, content_clean } = inboundContent({ html: APPLE_HTML });
      expect(content).to.contain('> Shall we meet Tuesday?');
      expect(content_clean).to.equal('Yes, that works.');
    });

    it('falls back to the text part when there is no usable HTML', function () {
      expect(inboundContent({ text: 'Plain\r\nbody\r\n' })).to.deep.equal({ content: 'Plain\nbody', content_clean: 'Plain\nbody' });
      expect(inboundContent({ text: 'Plain', html: '  ' })).to.deep.equal({ content: 'Plain', content_clean: 'Plain' });
      expect(inboundContent({})).to.deep.equal({ content: '', content_clean: '' });
    });

    it('keeps a message without quotes whole in content_clean', function () {
      const { content, content_clean } = inboundContent({ html: '<p>Hello <em>team</em>,</p><p>The report is attached.</p>' });
      expect(content).to.equal('Hello _team_,\n\nThe report is attached.');
      expect(content_clean).to.equal(content);
    });
  });
});
