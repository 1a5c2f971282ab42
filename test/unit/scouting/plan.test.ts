/** The plan at gate A (spec FR-02, FR-07) and the limits on an edited plan (spec 7.2). */
import { expect } from 'chai';
import { draftPlan, SPORT_HINTS, validatePlanEdit } from '../../../actors/scouting/plan.js';
import { LIMITS, type Sport } from '../../../actors/scouting/schemas.js';

describe('scouting plan (spec FR-02)', function () {
  describe('test_plan_generation_length', function () {
    for (const sport of ['nba', 'football', 'unknown'] as Sport[]) {
      it(`drafts 4–7 concrete steps naming the player (${sport})`, function () {
        const plan = draftPlan({ player_name: 'Marcus Ellery', sport });
        expect(plan.plan_steps.length).to.be.within(LIMITS.minPlanSteps, LIMITS.maxPlanSteps);
        expect(plan.plan_steps.filter((step) => step.includes('Marcus Ellery')).length).to.be.at.least(4);
        for (const step of plan.plan_steps) expect(step.length).to.be.within(10, LIMITS.stepChars);
      });
    }

    it('keeps the length within bounds for a name at the length limit', function () {
      const plan = draftPlan({ player_name: 'N'.repeat(LIMITS.playerName), sport: 'nba', hints: Array.from({ length: 20 }, (_, i) => `hint ${i}`) });
      expect(plan.plan_steps.length).to.be.within(LIMITS.minPlanSteps, LIMITS.maxPlanSteps);
      for (const step of plan.plan_steps) expect(step.length).to.be.at.most(LIMITS.stepChars);
      expect(plan.query_hints).to.have.length(LIMITS.hints);
    });
  });

  it('follows the spec’s template: retrieval before extraction, approval before saving', function () {
    const steps = draftPlan({ player_name: 'Caleb Drummond', sport: 'football' }).plan_steps.map((step) => step.toLowerCase());
    const at = (word: string): number => steps.findIndex((step) => step.includes(word));
    expect(at('retrieve')).to.be.lessThan(at('extract'));
    expect(at('extract')).to.be.lessThan(at('draft'));
    expect(at('approval')).to.be.lessThan(at('save the approved'));
  });

  it('proposes query hints by sport, the user’s own first, without repeats', function () {
    expect(draftPlan({ player_name: 'X Y', sport: 'nba' }).query_hints).to.deep.equal(['shooting', 'defense', 'playmaking']);
    expect(draftPlan({ player_name: 'X Y', sport: 'football' }).query_hints).to.deep.equal(['passing', 'pocket presence', 'red zone']);
    expect(draftPlan({ player_name: 'X Y', sport: 'nba', hints: ['playoff performance', ' Shooting '] }).query_hints).to.deep.equal(['playoff performance', 'Shooting', 'defense', 'playmaking']);
    expect(SPORT_HINTS.unknown.length).to.be.greaterThan(0);
  });
});

describe('plan edits (spec 7.2)', function () {
  it('returns cleaned values: trimmed, single-spaced, blanks and repeats dropped', function () {
    const edit = validatePlanEdit({ plan_steps: ['  Find   stats ', '', 'find stats', 'Draft report'], query_hints: [' injuries ', 'Injuries', 'leadership'] });
    expect(edit).to.deep.equal({ ok: true, value: { plan_steps: ['Find stats', 'Draft report'], query_hints: ['injuries', 'leadership'] } });
  });

  it('accepts an edit of only one list, and a plan of a single step', function () {
    expect(validatePlanEdit({ query_hints: ['red zone'] })).to.deep.equal({ ok: true, value: { query_hints: ['red zone'] } });
    expect(validatePlanEdit({ plan_steps: ['Just write the report'] })).to.deep.equal({ ok: true, value: { plan_steps: ['Just write the report'] } });
    expect(validatePlanEdit({})).to.deep.equal({ ok: true, value: {} });
  });

  it('refuses more than 10 steps, a step over 500 characters, or no step at all', function () {
    const tooMany = validatePlanEdit({ plan_steps: Array.from({ length: 11 }, (_, i) => `Step ${i}`) });
    expect(tooMany.ok).to.equal(false);
    expect(tooMany.ok ? [] : tooMany.problems.join(' ')).to.match(/11 steps, at most 10/);
    const tooLong = validatePlanEdit({ plan_steps: ['ok', 'x'.repeat(501)] });
    expect(tooLong.ok ? [] : tooLong.problems.join(' ')).to.match(/step 2 has 501 characters, at most 500/);
    expect(validatePlanEdit({ plan_steps: ['x'.repeat(500)] }).ok).to.equal(true);
    expect(validatePlanEdit({ plan_steps: ['  ', ''] }).ok).to.equal(false);
  });

  it('refuses more than 10 hints or a hint over 100 characters', function () {
    expect(validatePlanEdit({ query_hints: Array.from({ length: 11 }, (_, i) => `hint ${i}`) }).ok).to.equal(false);
    expect(validatePlanEdit({ query_hints: Array.from({ length: 10 }, (_, i) => `hint ${i}`) }).ok).to.equal(true);
    const long = validatePlanEdit({ query_hints: ['y'.repeat(101)] });
    expect(long.ok ? [] : long.problems).to.deep.equal(['query_hints: hint 1 has 101 characters, at most 100 are allowed']);
  });

  it('refuses lists that are not lists of strings, reporting every problem at once', function () {
    const edit = validatePlanEdit({ plan_steps: 'one step', query_hints: [1, 2] });
    expect(edit.ok ? [] : edit.problems).to.deep.equal(['plan_steps must be a list of strings', 'query_hints must be a list of strings']);
  });
});
