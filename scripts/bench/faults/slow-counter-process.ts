/**
 * A `troupe gateway` or `troupe worker` process (argv[2]) routing to, or hosting, only the slow counter
 * (see slow-counter.ts), for fault benchmarks that need a turn held in flight: the same runGateway and
 * runWorker the CLI runs. Started with `node --import tsx`.
 */
import { loadConfig } from '../../config.js';
import { runGateway } from '../../gateway.js';
import { runWorker } from '../../worker.js';
import { slowCounterKind } from './slow-counter.js';

const role = process.argv[2];
if (role !== 'gateway' && role !== 'worker') throw new Error(`usage: slow-counter-process.ts gateway|worker (got ${role})`);
const run = role === 'gateway' ? runGateway : runWorker;
process.exit(await run(loadConfig(), [slowCounterKind]));
