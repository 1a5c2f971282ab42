import type { Socket } from 'node:net';

/**
 * A slowloris client's half: writes one byte to `socket` every `everyMs` (a header that never ends),
 * up to `maxBytes`, and stops once the socket is closed. Returns the timer, for the caller's cleanup.
 */
export function trickle(socket: Socket, { everyMs, maxBytes }: { everyMs: number; maxBytes: number }): ReturnType<typeof setInterval> {
  let sent = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || sent >= maxBytes) return clearInterval(timer);
    sent += 1;
    socket.write('a');
  }, everyMs);
  return timer;
}
