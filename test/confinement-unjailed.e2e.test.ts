/**
 * The confinement suite (testing/confinement-suite.ts) with ENGINE_SANDBOX=off: without the jail, each engine's
 * own settings and the service's own checks are the only defence, and they must hold by themselves: no server
 * file embedded, no request to the beacon, no server path in an error.
 */
import { confinementSuite } from './testing/confinement-suite.js';

confinementSuite({ title: 'engines unconfined (ENGINE_SANDBOX=off): their own settings hold', sandbox: 'off' });
