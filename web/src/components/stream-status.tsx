import type { StreamStatus } from '../sse.js';

const LABELS: Record<StreamStatus, string> = {
  connecting: 'connecting…',
  open: 'live',
  reconnecting: 'reconnecting…',
  closed: 'closed',
};

/** The state of a live stream, so a dropped connection is visible while it resumes. */
export function StreamStatusBadge({ status }: { status: StreamStatus | undefined }) {
  if (status === undefined) return null;
  return (
    <span class={`stream-status stream-${status}`} role="status" data-stream-status={status}>
      {LABELS[status]}
    </span>
  );
}
