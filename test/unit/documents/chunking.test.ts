/** Chunking: sections from headings, paragraphs packed to size, sentence overlap within a section only. */
import { expect } from 'chai';
import { chunkText, countWords, normalisedTextHash } from '../../../actors/documents/chunking.js';

/** Eight words, unique per n, so a repeated sentence can be traced to where it came from. */
function sentence(n: number): string {
  return `Sentence number ${n} describes the player in detail.`;
}

function paragraph(from: number, count: number): string {
  return Array.from({ length: count }, (_, i) => sentence(from + i)).join(' ');
}

function sentencesIn(text: string): number[] {
  return [...text.matchAll(/Sentence number (\d+)/g)].map((match) => Number(match[1]));
}

describe('chunkText', function () {
  it('keeps Markdown headings, with their parents, as each chunk’s section', function () {
    const text = [
      '# Jalen Brooks',
      '',
      'A wing from Ohio.',
      '',
      '## Strengths',
      '',
      'Elite catch-and-shoot jumper.',
      '',
      '## Weaknesses',
      '',
      'Loose handle under pressure.',
      '',
      '# Other Player',
      '',
      'Different person.',
    ].join('\n');
    const chunks = chunkText(text, 'markdown');
    expect(chunks.map((chunk) => [chunk.heading, chunk.text])).to.deep.equal([
      ['Jalen Brooks', 'A wing from Ohio.'],
      ['Jalen Brooks > Strengths', 'Elite catch-and-shoot jumper.'],
      ['Jalen Brooks > Weaknesses', 'Loose handle under pressure.'],
      ['Other Player', 'Different person.'],
    ]);
    expect(chunks.map((chunk) => chunk.index)).to.deep.equal([0, 1, 2, 3]);
  });

  it('does not take # lines inside a code block, or text before any heading, for headings', function () {
    const text = 'Preface line.\n\n# Notes\n\n```\n# not a heading\n\nstill code\n```\n';
    const chunks = chunkText(text, 'markdown');
    expect(chunks.map((chunk) => chunk.heading)).to.deep.equal([null, 'Notes']);
    expect(chunks[1]!.text).to.equal('```\n# not a heading\n\nstill code\n```');
  });

  it('guesses headings in plain text: a short standalone line, or a line in capitals', function () {
    const text = [
      'SCOUTING REPORT',
      'Jalen Brooks is a wing.',
      '',
      'Physical profile',
      '',
      'He is listed at 6\'8 and 215 pounds.',
      '',
      'He runs well.',
      '',
      'More text here.',
    ].join('\n');
    const chunks = chunkText(text, 'text');
    expect(chunks.map((chunk) => chunk.heading)).to.deep.equal(['SCOUTING REPORT', 'Physical profile']);
    // "He runs well." ends like a sentence, so it stays body text.
    expect(chunks[1]!.text).to.equal("He is listed at 6'8 and 215 pounds.\n\nHe runs well.\n\nMore text here.");
  });

  it('rejoins wrapped lines and hyphenated words of a PDF paragraph', function () {
    const chunks = chunkText('He is an excel-\nlent defender who\nguards four positions.', 'pdf');
    expect(chunks.map((chunk) => chunk.text)).to.deep.equal(['He is an excellent defender who guards four positions.']);
  });

  it('packs short paragraphs together up to about the target size', function () {
    // 20 paragraphs of 16 words (320 words): about two chunks of 160, not twenty.
    const text = Array.from({ length: 20 }, (_, i) => paragraph(i * 2, 2)).join('\n\n');
    const chunks = chunkText(text, 'text', { overlapWords: 0 });
    expect(chunks).to.have.length(2);
    for (const chunk of chunks) expect(countWords(chunk.text)).to.be.within(140, 180);
    expect(chunks[0]!.text.split('\n\n')).to.have.length(10);
    expect(sentencesIn(chunks.map((chunk) => chunk.text).join(' '))).to.deep.equal(Array.from({ length: 40 }, (_, i) => i));
  });

  it('never exceeds maxWords: long paragraphs are cut at sentences, endless sentences at words', function () {
    const long = paragraph(0, 100); // 800 words in one paragraph
    const endless = Array.from({ length: 700 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkText(`${long}\n\n${endless}`, 'text');
    expect(chunks.length).to.be.greaterThan(6);
    for (const chunk of chunks) expect(countWords(chunk.text)).to.be.at.most(260);
    // Cuts fall between sentences: no chunk holds a broken one.
    for (const chunk of chunks.filter((c) => c.text.startsWith('Sentence'))) {
      expect(chunk.text.endsWith('in detail.')).to.equal(true, chunk.text.slice(-40));
    }
    const words = chunks.flatMap((chunk) => chunk.text.split(/\s+/)).filter((word) => word.startsWith('word'));
    expect(new Set(words).size).to.equal(700);
  });

  it('repeats whole trailing sentences of the previous chunk within a section', function () {
    const text = `# Profile\n\n${paragraph(0, 60)}`; // 480 words in one section
    const chunks = chunkText(text, 'markdown');
    expect(chunks.length).to.be.greaterThan(2);
    for (let i = 1; i < chunks.length; i++) {
      const previous = sentencesIn(chunks[i - 1]!.text);
      const next = sentencesIn(chunks[i]!.text);
      const repeated = next.filter((n) => previous.includes(n));
      // Whole sentences, taken from the end of the previous chunk, about 40 words (five 8-word sentences).
      expect(repeated).to.deep.equal(previous.slice(-repeated.length));
      expect(repeated.length * 8).to.be.within(24, 40);
      expect(next.slice(0, repeated.length)).to.deep.equal(repeated);
    }
  });

  it('does not overlap across sections', function () {
    const text = `# First\n\n${paragraph(0, 30)}\n\n# Second\n\n${paragraph(100, 30)}`;
    const chunks = chunkText(text, 'markdown');
    const firstOfSecond = chunks.find((chunk) => chunk.heading === 'Second')!;
    expect(sentencesIn(firstOfSecond.text)[0]).to.equal(100);
    expect(sentencesIn(firstOfSecond.text).every((n) => n >= 100)).to.equal(true);
  });

  it('is deterministic', function () {
    const text = `# A\n\n${paragraph(0, 45)}\n\n## B\n\n- item one\n- item two\n\n${paragraph(50, 70)}`;
    const first = chunkText(text, 'markdown');
    const second = chunkText(text, 'markdown');
    expect(second).to.deep.equal(first);
    expect(first.map((chunk) => chunk.index)).to.deep.equal(first.map((_, i) => i));
  });

  it('refuses limits that cannot be met', function () {
    expect(() => chunkText('x', 'text', { targetWords: 100, maxWords: 50 })).to.throw(RangeError);
    expect(() => chunkText('x', 'text', { targetWords: 40, overlapWords: 40 })).to.throw(RangeError);
  });
});

describe('normalisedTextHash', function () {
  it('ignores case and whitespace, not wording', function () {
    expect(normalisedTextHash('Elite  shooter\nfrom deep')).to.equal(normalisedTextHash('elite shooter from DEEP'));
    expect(normalisedTextHash('elite shooter')).to.not.equal(normalisedTextHash('elite passer'));
  });
});
