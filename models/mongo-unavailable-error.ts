/** MongoDB could not be reached or the embedded server could not start; the message says which and why. */
export class MongoUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MongoUnavailableError';
  }
}
