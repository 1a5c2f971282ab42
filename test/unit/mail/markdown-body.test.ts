/** Outgoing Markdown bodies: sanitized HTML safe for mail clients, and a readable text part. */
import { expect } from 'chai';
import { renderMarkdown } from '../../../actors/mail/markdown-body.js';

describe('mail markdown body', function () {
  describe('HTML part', function () {
    it('renders Markdown structure', function () {
      const { html } = renderMarkdown('# Plan\n\nThis is **bold** and _soft_.\n\n> quoted');
      expect(html).to.contain('<h1>Plan</h1>');
      expect(html).to.contain('<strong>bold</strong>');
      expect(html).to.contain('<em>soft</em>');
      expect(html).to.match(/<blockquote>\s*<p>quoted<\/p>\s*<\/blockquote>/);
    });

    it('removes script tags with their content', function () {
      const { html, text } = renderMarkdown('Hello <script>alert("inline")</script> there\n\n<script>\nalert("block")\n</script>\n');
      expect(html).not.to.match(/<script/i);
      expect(html).not.to.contain('alert(');
      expect(text).not.to.contain('alert(');
      expect(html).to.contain('Hello');
    });

    it('removes event handler attributes', function () {
      const { html } = renderMarkdown('<img src="https://example.com/x.png" onerror="alert(1)">\n\n<b onclick="steal()">hi</b> <a href="https://example.com" onmouseover="x()">a</a>');
      expect(html).not.to.match(/\son\w+=/i);
      expect(html).to.contain('<b>hi</b>');
      expect(html).to.contain('src="https://example.com/x.png"');
    });

    it('drops javascript:, data: and vbscript: link targets, in Markdown and in raw HTML', function () {
      const { html } = renderMarkdown('[one](javascript:alert(1)) <a href="JaVaScRiPt:alert(2)">two</a> <a href="data:text/html,x">three</a> <a href="vbscript:x">four</a>');
      expect(html).not.to.match(/javascript:|data:|vbscript:/i);
      expect(html).to.contain('one').and.to.contain('two');
    });

    it('removes styles, iframes, forms and inline style attributes', function () {
      const { html } = renderMarkdown('<style>p { display: none }</style>\n\n<iframe src="https://evil.example"></iframe>\n\n<form action="https://evil.example"><input name="pw"></form>\n\n<p style="color:red">red</p>');
      expect(html).not.to.match(/<style|<iframe|<form|<input|style=/i);
      expect(html).not.to.contain('display: none');
      expect(html).to.contain('red');
    });

    it('gives every link rel="noopener noreferrer", overriding one written in the Markdown', function () {
      const { html } = renderMarkdown('[docs](https://example.com/docs) and <a href="https://example.com" rel="opener">raw</a>');
      const anchors = html.match(/<a [^>]*>/g) ?? [];
      expect(anchors).to.have.length(2);
      for (const anchor of anchors) expect(anchor).to.contain('rel="noopener noreferrer"');
      expect(html).to.contain('href="https://example.com/docs"');
    });

    it('keeps tables, lists and code', function () {
      const { html } = renderMarkdown(
        '| Item | Qty |\n|------|----:|\n| Pens | 3 |\n\n- one\n- two\n\n1. first\n2. second\n\n```ts\nconst x = 1 < 2;\n```\n\nInline `code` too.',
      );
      expect(html).to.match(/<table>[\s\S]*<th>Item<\/th>[\s\S]*<td align="right">3<\/td>[\s\S]*<\/table>/);
      expect(html).to.match(/<ul>\s*<li>one<\/li>\s*<li>two<\/li>\s*<\/ul>/);
      expect(html).to.match(/<ol>\s*<li>first<\/li>/);
      expect(html).to.contain('<pre><code class="language-ts">const x = 1 &lt; 2;');
      expect(html).to.contain('<code>code</code>');
    });

    it('shows task-list boxes as glyphs instead of form inputs', function () {
      const { html } = renderMarkdown('- [x] done\n- [ ] open');
      expect(html).not.to.contain('<input');
      expect(html).to.contain('☑ done').and.to.contain('☐ open');
    });
  });

  describe('text part', function () {
    it('strips formatting and keeps link URLs as text (url)', function () {
      const { text } = renderMarkdown('# Hello\n\nSee **the** [docs](https://example.com/docs) or <https://example.com>, mail bob@example.com.');
      expect(text).to.equal('Hello\n\nSee the docs (https://example.com/docs) or https://example.com, mail bob@example.com.');
    });

    it('writes list bullets as "- ", numbers ordered lists, and indents nested ones', function () {
      const { text } = renderMarkdown('* one\n* two\n  1. nested\n  2. again\n\n3. three\n4. four');
      expect(text).to.equal('- one\n- two\n  1. nested\n  2. again\n\n3. three\n4. four');
    });

    it('keeps code as is, quotes with "> ", and table cells separated by |', function () {
      const { text } = renderMarkdown('```\nif (a < b) { go(); }\n```\n\n> said *this*\n\n| a | b |\n|---|---|\n| 1 | 2 |');
      expect(text).to.equal('if (a < b) { go(); }\n\n> said this\n\na | b\n1 | 2');
    });

    it('decodes entities and does not show unsafe link targets', function () {
      const { text } = renderMarkdown('Tom &amp; Jerry [click](javascript:alert(1))');
      expect(text).to.equal('Tom & Jerry click');
    });

    it('writes task items with [ ] and [x]', function () {
      expect(renderMarkdown('- [x] done\n- [ ] open').text).to.equal('- [x] done\n- [ ] open');
    });
  });
});
