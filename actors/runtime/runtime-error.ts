/** A refusal the gateway turns into an HTTP status / MCP tool error. */
export class RuntimeError extends Error {
  constructor(
    readonly code: 'not_found' | 'bad_request' | 'conflict',
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'RuntimeError';
  }
}
