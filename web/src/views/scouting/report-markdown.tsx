/**
 * A scouting report as people read it: the run's Markdown rendered (and sanitized) by the shared
 * Markdown component, with its citations made visible: each `[n]` in the text is a superscript
 * marker, and the Sources section (one `[n] document` per line) becomes a list. Its headings move
 * one level down: the page's own title is the one h1.
 */
import { Markdown } from '../../components/markdown.js';

const SOURCES_HEADING = /^## Sources[ \t]*$/m;
const SOURCE_LINE = /^\[(\d+)\][ \t]+(.+)$/;
/** `[n]` not followed by `(` (a Markdown link) nor `:` (a link definition). */
const CITATION = /\[(\d{1,3})\](?![(:])/g;

export function reportMarkdownWithCitations(text: string): string {
  const heading = SOURCES_HEADING.exec(text);
  const body = heading ? text.slice(0, heading.index) : text;
  const sources = heading ? text.slice(heading.index + heading[0].length) : '';
  const cited = body.replace(CITATION, '<sup class="citation">[$1]</sup>').replace(/^(#{1,5}) /gm, '#$1 ');
  if (!heading) return cited;
  const listed = sources
    .split('\n')
    .map((line) => {
      const source = SOURCE_LINE.exec(line.trim());
      // `\[` keeps the number literal: marked would otherwise look for a link reference.
      return source ? `- \\[${source[1]}\\] ${source[2]}` : line;
    })
    .join('\n');
  return `${cited}### Sources\n${listed}`;
}

export function ReportMarkdown({ text }: { text: string }) {
  return (
    <div data-testid="scouting-report">
      <Markdown text={reportMarkdownWithCitations(text)} class="scouting-report" />
    </div>
  );
}
