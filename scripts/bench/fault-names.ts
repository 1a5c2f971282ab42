/** The faults `bench:faults` can run, in the order it runs them (a module of its own so the CLI can validate names without loading the benches). */
export const FAULTS = ['takeover', 'mongo-restart', 'broker-reset', 'slow-clients'] as const;
export type FaultName = (typeof FAULTS)[number];
