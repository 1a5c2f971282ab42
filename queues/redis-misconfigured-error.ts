/**
 * Redis answers, but troupe must not run on it as configured (keys may be evicted, or the prefix
 * belongs to another deployment); the message says what to change.
 */
export class RedisMisconfiguredError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisMisconfiguredError';
  }
}
