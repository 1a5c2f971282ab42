/**
 * A real `troupe worker` process hosting the test-only kinds: the same runWorker the CLI runs, with the
 * test kinds in place of the production registry. Started by tests with `node --import tsx`.
 */
import { loadConfig } from '../../scripts/config.js';
import { runWorker } from '../../scripts/worker.js';
import { testKinds } from './test-kinds.js';

const code = await runWorker(loadConfig(), testKinds);
process.exit(code);
