/**
 * A real `troupe gateway` process routing to the test-only kinds: the same runGateway the CLI runs,
 * with the test kinds in place of the production registry. Started by tests with `node --import tsx`.
 */
import { loadConfig } from '../../scripts/config.js';
import { runGateway } from '../../scripts/gateway.js';
import { testKinds } from './test-kinds.js';

const code = await runGateway(loadConfig(), testKinds);
process.exit(code);
