/**
 * troupe's web client in a real browser: Debian's chromium, driven by playwright-core, against one real
 * `troupe start` on loopback. Each view's flows live in test/browser/flows/ and share the one troupe
 * (see harness.ts); every flow saves a screenshot under test-results/ and runs axe-core on its view.
 */
import { coachFlows } from './flows/coach.js';
import { dominionFlows } from './flows/dominion.js';
import { mailFlows } from './flows/mail.js';
import { metaFlows } from './flows/meta.js';
import { scoutingFlows } from './flows/scouting.js';
import { shellFlows } from './flows/shell.js';
import { useWebTroupe } from './harness.js';

describe('web client in a real browser (chromium + troupe start)', function () {
  this.timeout(120_000);
  const web = useWebTroupe();
  shellFlows(web);
  dominionFlows(web);
  metaFlows(web);
  coachFlows(web);
  scoutingFlows(web);
  mailFlows(web);
});
