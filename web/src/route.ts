/**
 * Hash routes (`#/dominion/g-123`): the gateway serves one page at `/`, and a hash never reaches the
 * server, so deep links need no server routes. `parts` are the decoded path segments after the view.
 */
import { useEffect, useState } from 'preact/hooks';

export const VIEWS = ['dominion', 'meta', 'coach', 'scouting', 'mail', 'account'] as const;
export type ViewName = (typeof VIEWS)[number];

export interface Route {
  view: ViewName;
  parts: string[];
}

export function parseRoute(hash: string): Route {
  const [first = '', ...rest] = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  const view = (VIEWS as readonly string[]).includes(first) ? (first as ViewName) : 'dominion';
  return { view, parts: rest };
}

export function hrefOf(view: ViewName, ...parts: string[]): string {
  return `#/${[view, ...parts].map(encodeURIComponent).join('/')}`;
}

export function navigate(view: ViewName, ...parts: string[]): void {
  location.hash = hrefOf(view, ...parts);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}
