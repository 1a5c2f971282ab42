/**
 * A `troupe worker` process hosting only the slow counter (see slow-counter.ts), for the takeover
 * benchmark and fault tests: the same runWorker the CLI runs. Started with `node --import tsx`.
 */
import { loadConfig } from '../../config.js';
import { runWorker } from '../../worker.js';
import { slowCounterKind } from './slow-counter.js';

process.exit(await runWorker(loadConfig(), [slowCounterKind]));
