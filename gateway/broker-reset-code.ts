/**
 * The failure code of a request whose message Redis lost when it came back without its data
 * (broker-reset.ts answers it). A module of its own, so that code naming the failure loads nothing of
 * what answers it.
 */
export const BROKER_RESET_CODE = 'broker_reset';
