/**
 * optimize_mainboard and optimize_sideboard: each as a diff of your deck (cards in / out), the reasons
 * computed from the data, and the written explanation.
 */
import { Markdown } from '../../components/markdown.js';
import { CardDiff, mainboardDiff, sideboardDiff } from './card-diff.js';
import { percent } from './figures.js';
import type { CardDetail, MainboardAdvice, SideboardAdvice } from './meta-api.js';
import { ScrollBox } from '../../components/scroll-box.js';

function Explanation({ text }: { text: string }) {
  return (
    <details>
      <summary>Explanation</summary>
      <Markdown text={text} />
    </details>
  );
}

export function MainboardPanel({ advice }: { advice: MainboardAdvice }) {
  return (
    <div data-testid="mainboard-advice">
      <p class="muted">
        From {advice.metadata.archetype_lists} recent {advice.archetype} lists, {advice.metadata.period.start} to {advice.metadata.period.end}.
      </p>
      <CardDiff diff={mainboardDiff(advice)} testId="mainboard-diff" what="main deck" />
      {advice.recommendations.length > 0 ? (
        <ScrollBox label="Suggested main-deck swaps (scrolls sideways)">
          <table aria-label="Suggested main-deck swaps" data-testid="mainboard-swaps">
            <thead>
              <tr>
                <th scope="col">Swap</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {advice.recommendations.map((swap) => (
                <tr key={`${swap.add}-${swap.replaces ?? ''}`}>
                  <th scope="row">
                    <span class="diff-in">+{swap.quantity} {swap.add}</span>
                    {swap.replaces ? (
                      <>
                        {' '}
                        <span class="diff-out">−{swap.quantity} {swap.replaces}</span>
                      </>
                    ) : null}
                  </th>
                  <td>{swap.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      ) : null}
      <Explanation text={advice.explanation} />
    </div>
  );
}

export function SideboardPanel({ advice, deck }: { advice: SideboardAdvice; deck: CardDetail[] }) {
  const total = advice.final_sideboard.reduce((sum, card) => sum + card.quantity, 0);
  return (
    <div data-testid="sideboard-advice">
      <CardDiff diff={sideboardDiff(deck, advice)} testId="sideboard-diff" what="sideboard" />
      {advice.sideboard_changes.length > 0 ? (
        <ul class="sideboard-reasons" aria-label="Why these sideboard changes">
          {advice.sideboard_changes.map((change) => (
            <li key={change.card}>
              <strong>{change.card}</strong> {change.from} → {change.to}: {change.reason}
            </li>
          ))}
        </ul>
      ) : null}
      <h4>Suggested sideboard ({total} cards)</h4>
      <ul class="chips" aria-label="Suggested sideboard" data-testid="final-sideboard">
        {advice.final_sideboard.map((card) => (
          <li class="chip" key={card.name}>
            {card.quantity} {card.name}
          </li>
        ))}
      </ul>
      {advice.sideboard_plans.length > 0 ? (
        <>
          <h4>Plans against the top archetypes</h4>
          <ScrollBox label="Sideboard plans (scrolls sideways)">
            <table aria-label="Sideboard plans per opponent">
              <thead>
                <tr>
                  <th scope="col">Opponent</th>
                  <th scope="col" class="num">Share</th>
                  <th scope="col" class="num">Your record</th>
                  <th scope="col">Bring in</th>
                </tr>
              </thead>
              <tbody>
                {advice.sideboard_plans.map((plan) => (
                  <tr key={plan.opponent_archetype}>
                    <th scope="row">{plan.opponent_archetype}</th>
                    <td class="num">{percent(plan.meta_share)}</td>
                    <td class="num">
                      {percent(plan.matchup.win_rate)} <span class="muted">({plan.matchup.match_count})</span>
                    </td>
                    <td>{plan.bring_in.length > 0 ? plan.bring_in.join(', ') : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
        </>
      ) : null}
      <Explanation text={advice.explanation} />
    </div>
  );
}
