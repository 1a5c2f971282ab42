/** Scouting intake (spec FR-01): intent, player name and sport guess read from the request, without a model. */
import { expect } from 'chai';
import { intakeRequest, playerNameIn, sanitizeName, sportFromEvidence, sportOf } from '../../../actors/scouting/intake.js';
import { LIMITS } from '../../../actors/scouting/schemas.js';

describe('scouting intake (spec FR-01)', function () {
  describe('test_intake_extracts_player_name', function () {
    it('reads the spec’s examples', function () {
      expect(intakeRequest('Generate a scouting report for LeBron James')).to.include({ intent: 'scouting_report', player_name: 'LeBron James' });
      expect(intakeRequest('Scout Patrick Mahomes strengths and weaknesses')).to.include({ intent: 'scouting_report', player_name: 'Patrick Mahomes' });
      expect(intakeRequest('Create a player analysis')).to.deep.equal({ intent: 'scouting_report', player_name: null, sport_guess: 'unknown' });
    });

    const formats: [string, string][] = [
      ['Scouting report on Marcus Ellery', 'Marcus Ellery'],
      ['scout Theo Vance please', 'Theo Vance'],
      ['Can you put together a player profile of Rafael de la Torre?', 'Rafael de la Torre'],
      ['Player profile: "Tobias McKinnon"', 'Tobias McKinnon'],
      ["I need a scouting report for 'Caleb Drummond' before the draft", 'Caleb Drummond'],
      ['Looking for a scouting report on Theo Vance, the NBA center', 'Theo Vance'],
      ['Report on Comets guard Marcus Ellery', 'Marcus Ellery'],
      ['Marcus Ellery scouting report', 'Marcus Ellery'],
      ["Analyze player Shaquille O'Neal", "Shaquille O'Neal"],
      ["What are Patrick Mahomes' strengths? Scout him.", 'Patrick Mahomes'],
      ["Scouting report: LeBron James's playoff games", 'LeBron James'],
      ['Write me a scouting report on A.J. Brown', 'A.J. Brown'],
      ['Scout Karl-Anthony Towns rebounds', 'Karl-Anthony Towns'],
      ['Analyse player Kevin De Bruyne', 'Kevin De Bruyne'],
      ['scout Nikola Jokić', 'Nikola Jokić'],
      ['Scout Ken Griffey Jr. for me', 'Ken Griffey Jr.'],
      ['Generate a scouting report for DeAndre McCall of the Harbor City Comets', 'DeAndre McCall'],
      ['scouting report for marcus ellery', 'Marcus Ellery'],
      ['scout Okafor', 'Okafor'],
    ];
    for (const [request, name] of formats) {
      it(`finds "${name}" in "${request}"`, function () {
        expect(intakeRequest(request)).to.include({ intent: 'scouting_report', player_name: name });
      });
    }

    it('finds no name where there is none, so the graph asks', function () {
      for (const request of ['Create a player analysis', 'Generate a scouting report', 'scout him', 'Write a scouting report on my team', 'Give me a player profile for the NBA']) {
        expect(playerNameIn(request), request).to.equal(null);
      }
    });
  });

  it('recognises the spec’s intent keywords and nothing else', function () {
    for (const request of ['scouting report please', 'Scout this guy', 'player profile', 'analyze player X', 'analyse the player', 'a report on him', 'Create a player analysis']) {
      expect(intakeRequest(request).intent, request).to.equal('scouting_report');
    }
    for (const request of ['What is the Modern meta?', 'hello', 'Tell me about Marcus Ellery', 'Who won the game last night?']) {
      expect(intakeRequest(request).intent, request).to.equal('other');
    }
  });

  it('guesses the sport from context words, and says unknown without them', function () {
    expect(intakeRequest('Scout the point guard Marcus Ellery, his three-point shooting and rebounds').sport_guess).to.equal('nba');
    expect(intakeRequest('Scouting report for Caleb Drummond: passing yards, touchdowns, quarterback play').sport_guess).to.equal('football');
    expect(intakeRequest('Scouting report for Jordan Pike in the NFL').sport_guess).to.equal('football');
    expect(intakeRequest('Basketball scouting report for Jordan Pike').sport_guess).to.equal('nba');
    expect(intakeRequest('Generate a scouting report for LeBron James').sport_guess).to.equal('unknown');
    expect(sportOf('basketball or football?')).to.equal('unknown');
  });

  it('reads the sport from the evidence when the request names none', function () {
    expect(sportFromEvidence(['He plays small forward in the NBA.', 'Shot 40% on three-pointers and grabbed 6 rebounds.'])).to.equal('nba');
    expect(sportFromEvidence(['The quarterback threw for 3,912 passing yards.', 'Completion rate 67%.'])).to.equal('football');
    expect(sportFromEvidence([])).to.equal('unknown');
  });

  it('sanitizes names: no control characters, single spaces, at most 200 characters', function () {
    expect(sanitizeName('  Marcus \t\n Ellery\u0000\u200b ')).to.equal('Marcus Ellery');
    expect(sanitizeName('x'.repeat(500))).to.have.length(LIMITS.playerName);
    expect(sanitizeName('\u0007')).to.equal('');
  });
});
