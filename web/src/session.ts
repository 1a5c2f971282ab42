/**
 * The signed-in API key. `sessionStorage` by default (gone when the tab closes); `localStorage` when
 * the user asks to be remembered on this device. Listeners hear sign-in and sign-out, including a
 * sign-out forced by the API refusing the key (revoked, expired).
 */
const STORAGE_KEY = 'troupe.apiKey';

export interface Session {
  apiKey: string;
  remember: boolean;
}

type Listener = (session: Session | undefined) => void;
const listeners = new Set<Listener>();

export function currentSession(): Session | undefined {
  const remembered = localStorage.getItem(STORAGE_KEY);
  if (remembered) return { apiKey: remembered, remember: true };
  const session = sessionStorage.getItem(STORAGE_KEY);
  return session ? { apiKey: session, remember: false } : undefined;
}

export function signIn(session: Session): void {
  localStorage.removeItem(STORAGE_KEY);
  sessionStorage.removeItem(STORAGE_KEY);
  (session.remember ? localStorage : sessionStorage).setItem(STORAGE_KEY, session.apiKey);
  for (const listener of listeners) listener(session);
}

export function signOut(): void {
  localStorage.removeItem(STORAGE_KEY);
  sessionStorage.removeItem(STORAGE_KEY);
  for (const listener of listeners) listener(undefined);
}

export function onSessionChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
