/**
 * Extraction and composition with a configured chat model: extraction is structured output checked
 * by zod (only facts that cite a retrieved chunk survive), composition writes the report's prose in
 * the template's sections. The provider bounds each request (LLM_TIMEOUT_MS); the graph's retry
 * policy retries a failed call, and a final failure says the report timed out.
 */
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { z } from 'zod';
import { composeOffline, countWords, sectionTitles } from './composition.js';
import { EXPECTED_FIELDS, LIMITS, PlayerFields, type EvidenceChunk, type Extraction, type ReportDraft, type Sport } from './schemas.js';

const EXCERPT_CHARS = 1200;

const ModelExtraction = z.object({
  raw_facts: z
    .array(z.object({ text: z.string().min(1).max(300), field: z.enum([...EXPECTED_FIELDS, 'other']), chunk_id: z.string() }))
    .max(80)
    .describe('Atomic facts from the excerpts, each with the chunk_id it came from'),
  player_fields: PlayerFields.describe('Only the fields the excerpts support; omit anything else'),
});

const excerpts = (chunks: EvidenceChunk[]) =>
  chunks.map((c) => `[chunk_id: ${c.chunk_id}] (${c.document_name}${c.heading ? ` — ${c.heading}` : ''})\n${c.text.slice(0, EXCERPT_CHARS)}`).join('\n\n');

export class ModelTimeout extends Error {
  constructor(cause: unknown) {
    super(`Report generation timed out. Please try again. (${cause instanceof Error ? cause.message.slice(0, 200) : String(cause)})`, { cause });
    this.name = 'ModelTimeout';
  }
}

export async function extractWithModel(model: BaseChatModel, chunks: EvidenceChunk[], player: { player_name: string; sport: Sport }, options: { signal: AbortSignal }): Promise<Extraction> {
  const structured = model.withStructuredOutput(ModelExtraction, { name: 'scouting_extraction' });
  const answer = await structured
    .invoke(
      [
        new SystemMessage(
          'You extract scouting facts about one player from document excerpts. Use only what the excerpts say; never add knowledge of your own. ' +
            'Omit every field the excerpts do not support. Heights in cm, weights in kg. Each raw fact cites the chunk_id it came from.',
        ),
        new HumanMessage(`Player: ${player.player_name} (sport guess: ${player.sport})\n\nExcerpts:\n${excerpts(chunks) || '(none)'}`),
      ],
      { signal: options.signal },
    )
    .catch((error: unknown) => {
      if (options.signal.aborted) throw error;
      throw new ModelTimeout(error);
    });
  const byId = new Map(chunks.map((c) => [c.chunk_id, c]));
  // A fact that cites no retrieved chunk is not evidence.
  const raw_facts = answer.raw_facts.flatMap((f) => {
    const chunk = byId.get(f.chunk_id);
    return chunk ? [{ text: f.text, field: f.field, chunk_id: chunk.chunk_id, doc_id: chunk.doc_id }] : [];
  });
  return { raw_facts, player_fields: { ...answer.player_fields, display_name: player.player_name, sport: answer.player_fields.sport === 'unknown' ? player.sport : answer.player_fields.sport } };
}

/**
 * The model writes the prose; the offline draft gives the skeleton it must keep (sections, sources,
 * summary). A section the model leaves out is taken from the offline draft, so the template holds.
 */
export async function composeWithModel(
  model: BaseChatModel,
  input: Parameters<typeof composeOffline>[0],
  options: { signal: AbortSignal },
): Promise<ReportDraft> {
  const skeleton = composeOffline(input);
  const sources = skeleton.report_text.split('\n## Sources')[1] ?? '';
  const answer = await model
    .invoke(
      [
        new SystemMessage(
          `You write sport-agnostic scouting reports in Markdown with exactly these sections as "## " headings, in order: ${sectionTitles.join('; ')}. ` +
            `Cite sources as [n] using the numbered source list. Use only the facts given. Say plainly what is missing. At most ${LIMITS.maxReportWords} words.`,
        ),
        new HumanMessage(
          [
            `Player: ${input.player_name} (${input.sport})`,
            `Facts (JSON): ${JSON.stringify(input.extraction)}`,
            `Coverage: ${JSON.stringify(input.coverage)}`,
            `Sources:${sources}`,
            input.feedback ? `The reader asked for these content changes: ${input.feedback}` : '',
            input.wording ? `The reader asked for this wording change: ${input.wording}` : '',
            `A plain draft to improve on:\n${skeleton.report_text}`,
          ]
            .filter(Boolean)
            .join('\n\n'),
        ),
      ],
      { signal: options.signal },
    )
    .catch((error: unknown) => {
      if (options.signal.aborted) throw error;
      throw new ModelTimeout(error);
    });
  const text = typeof answer.content === 'string' ? answer.content : answer.content.map((part) => ('text' in part ? part.text : '')).join('');
  const sections = skeleton.sections.map((section) => {
    const match = new RegExp(`^##\\s*${section.title.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\s*$([\\s\\S]*?)(?=^##\\s|(?![\\s\\S]))`, 'm').exec(text);
    const body = match?.[1]?.trim();
    return body ? { title: section.title, body } : section;
  });
  const report_text = [`# Scouting report: ${input.player_name}`, ...sections.map((s) => `## ${s.title}\n\n${s.body}`), sources ? `## Sources${sources}` : ''].filter(Boolean).join('\n\n');
  const words = countWords(report_text);
  if (words > LIMITS.maxReportWords) return skeleton;
  return { ...skeleton, sections, report_text, word_count: words };
}
