/**
 * A pasted deck through the meta tools: get_enriched_deck first (the other tools take its
 * card_details), then the archetype's matchups, the matchup strategy and both optimizers at once,
 * each shown as it arrives. A new analysis aborts the one before it.
 */
import { useRef, useState } from 'preact/hooks';
import { fetchDeckMatchups, metaTool, type DeckMatchups, type EnrichedDeck, type MainboardAdvice, type MatchupStrategy, type SideboardAdvice } from './meta-api.js';

export interface Step<T> {
  data?: T;
  error?: unknown;
  loading: boolean;
}

export interface DeckAnalysis {
  enriched: Step<EnrichedDeck>;
  matchups?: Step<DeckMatchups>;
  strategy?: Step<MatchupStrategy>;
  mainboard?: Step<MainboardAdvice>;
  sideboard?: Step<SideboardAdvice>;
  /** What the analysis was asked for, for the headings. */
  archetype: string;
  opponent: string;
}

export interface DeckRequest {
  deck: string;
  format: string;
  archetype: string;
  opponent: string;
  days: number;
}

type Later = 'matchups' | 'strategy' | 'mainboard' | 'sideboard';

export function useDeckAnalysis(): { analysis: DeckAnalysis | undefined; analyse: (request: DeckRequest) => Promise<void> } {
  const [analysis, setAnalysis] = useState<DeckAnalysis | undefined>(undefined);
  const running = useRef<AbortController | undefined>(undefined);

  const analyse = async ({ deck, format, archetype, opponent, days }: DeckRequest) => {
    running.current?.abort();
    const abort = new AbortController();
    running.current = abort;
    const { signal } = abort;
    setAnalysis({ enriched: { loading: true }, archetype, opponent });

    let enriched: EnrichedDeck;
    try {
      enriched = await metaTool<EnrichedDeck>('get_enriched_deck', { deck }, signal);
    } catch (error) {
      if (!signal.aborted) setAnalysis({ enriched: { error, loading: false }, archetype, opponent });
      return;
    }
    if (signal.aborted) return;
    if (enriched.card_details.length === 0) {
      setAnalysis({ enriched: { data: enriched, loading: false }, archetype, opponent });
      return;
    }

    const cards = enriched.card_details;
    const settle = <K extends Later>(key: K, call: Promise<NonNullable<DeckAnalysis[K]>['data']>) =>
      call.then(
        (data) => !signal.aborted && setAnalysis((now) => now && { ...now, [key]: { data, loading: false } }),
        (error: unknown) => !signal.aborted && setAnalysis((now) => now && { ...now, [key]: { error, loading: false } }),
      );
    setAnalysis({
      enriched: { data: enriched, loading: false },
      matchups: { loading: true },
      strategy: { loading: true },
      mainboard: { loading: true },
      sideboard: { loading: true },
      archetype,
      opponent,
    });
    await Promise.all([
      settle('matchups', fetchDeckMatchups(format, archetype, days, signal)),
      settle('strategy', metaTool<MatchupStrategy>('generate_deck_matchup_strategy', { card_details: cards, archetype, opponent_archetype: opponent, format, days }, signal)),
      settle('mainboard', metaTool<MainboardAdvice>('optimize_mainboard', { card_details: cards, archetype, format, days }, signal)),
      settle('sideboard', metaTool<SideboardAdvice>('optimize_sideboard', { card_details: cards, archetype, format, days }, signal)),
    ]);
  };

  return { analysis, analyse };
}
