/**
 * Inboxes have no push feed over HTTP, so what is on screen is re-read now and then while the tab is
 * visible, and at once when the tab comes back into view.
 */
import { useEffect } from 'preact/hooks';

const REFRESH_MS = 5000;

export function useRefreshWhileVisible(refresh: () => void, everyMs = REFRESH_MS): void {
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') refresh();
    }, everyMs);
    const onVisible = () => {
      if (document.visibilityState === 'visible') refresh();
    };
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [refresh, everyMs]);
}
