import { messageOf } from '../api.js';

/** An error as people read it: the API's own message, announced to screen readers. */
export function ErrorNote({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p class="error" role="alert">
      {messageOf(error)}
    </p>
  );
}
