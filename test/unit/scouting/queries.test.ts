/** Query diversification (spec FR-03): required queries, sport queries, hints, feedback, no near-duplicates, 3–6. */
import { expect } from 'chai';
import fc from 'fast-check';
import { buildQueries, diversificationScore, feedbackTerms, jaccard, queryTokens } from '../../../actors/scouting/queries.js';
import { LIMITS, type Sport } from '../../../actors/scouting/schemas.js';

const NAME = 'Marcus Ellery';
const REQUIRED = [NAME, `${NAME} strengths weaknesses`, `${NAME} height weight position`];

describe('scouting queries (spec FR-03)', function () {
  describe('test_query_diversification', function () {
    it('always includes the three required queries, first', function () {
      for (const sport of ['nba', 'football', 'unknown'] as Sport[]) {
        expect(buildQueries({ player_name: NAME, sport, query_hints: [] }).slice(0, 3)).to.deep.equal(REQUIRED);
      }
    });

    it('adds the sport’s queries', function () {
      expect(buildQueries({ player_name: NAME, sport: 'nba', query_hints: [] })).to.deep.equal([...REQUIRED, `${NAME} shooting percentage`, `${NAME} defensive rating`]);
      expect(buildQueries({ player_name: 'Caleb Drummond', sport: 'football', query_hints: [] }).slice(3)).to.deep.equal(['Caleb Drummond passing yards', 'Caleb Drummond completion rate']);
      expect(buildQueries({ player_name: NAME, sport: 'unknown', query_hints: [] })).to.deep.equal(REQUIRED);
    });

    it('includes the user’s hints as "{name} {hint}", not crowded out by sport defaults', function () {
      const queries = buildQueries({ player_name: NAME, sport: 'nba', query_hints: ['playoff performance', 'leadership', 'injury history'] });
      expect(queries).to.have.length(LIMITS.maxQueries);
      expect(queries).to.include.members([`${NAME} playoff performance`, `${NAME} leadership`, `${NAME} injury history`]);
      expect(queries).not.to.include(`${NAME} defensive rating`);
    });

    it('does not repeat the name when a hint already carries it', function () {
      expect(buildQueries({ player_name: NAME, sport: 'unknown', query_hints: ['Marcus Ellery contract'] })).to.include('Marcus Ellery contract');
    });

    it('turns edit feedback into a query from its key terms, ahead of hints', function () {
      const queries = buildQueries({ player_name: NAME, sport: 'nba', query_hints: ['a', 'b', 'c', 'd'], feedback: 'Please add more about his injury history and durability' });
      expect(queries[3]).to.equal(`${NAME} injury history durability`);
      expect(feedbackTerms('Tell me more about Marcus Ellery and his rebounding', NAME)).to.deep.equal(['rebounding']);
      expect(buildQueries({ player_name: NAME, sport: 'nba', query_hints: [], feedback: 'more please' })).to.have.length(5);
    });

    it('drops near-duplicates (Jaccard ≥ 0.8 over normalised tokens)', function () {
      const queries = buildQueries({ player_name: NAME, sport: 'nba', query_hints: ['Strengths and weaknesses', 'strength weakness', 'shooting percentages', 'SHOOTING percentage!'] });
      expect(queries).to.deep.equal([...REQUIRED, `${NAME} shooting percentages`, `${NAME} defensive rating`]);
      expect(jaccard(queryTokens('Marcus Ellery strengths weaknesses'), queryTokens('marcus ellery strength and weaknesses'))).to.equal(0.8);
    });

    it('keeps 3–6 distinct queries with the required ones for any hints and feedback', function () {
      fc.assert(
        fc.property(
          fc.constantFrom<Sport>('nba', 'football', 'unknown'),
          fc.array(fc.string({ maxLength: LIMITS.hintChars }), { maxLength: LIMITS.hints }),
          fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
          (sport, hints, feedback) => {
            const queries = buildQueries({ player_name: NAME, sport, query_hints: hints, ...(feedback === undefined ? {} : { feedback }) });
            expect(queries.length).to.be.within(LIMITS.minQueries, LIMITS.maxQueries);
            expect(queries.slice(0, 3)).to.deep.equal(REQUIRED);
            for (let i = 0; i < queries.length; i += 1) {
              for (let j = i + 1; j < queries.length; j += 1) expect(jaccard(queryTokens(queries[i]!), queryTokens(queries[j]!))).to.be.below(0.8);
            }
          },
        ),
      );
    });
  });

  it('scores diversification as 1 − mean pairwise Jaccard', function () {
    expect(diversificationScore([])).to.equal(0);
    expect(diversificationScore(['a b'])).to.equal(0);
    expect(diversificationScore(['a b', 'a b'])).to.equal(0);
    expect(diversificationScore(['a b', 'c d'])).to.equal(1);
    expect(diversificationScore(['a b', 'a c'])).to.equal(Math.round((1 - 1 / 3) * 1000) / 1000);
    const score = diversificationScore(buildQueries({ player_name: NAME, sport: 'nba', query_hints: [] }));
    expect(score).to.be.greaterThan(0.3).and.below(1);
  });
});
