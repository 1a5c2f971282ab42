/**
 * The one way the client calls troupe's HTTP API: the key as a Bearer token, JSON in and out, and
 * every failure as an ApiFailure that carries the API's own message (never "[object Object]").
 * A 401 means the key no longer works: the session ends and the sign-in form shows.
 */
import { currentSession, signOut } from './session.js';

/** The gateway's error body: `{error: {code, message, details}}`. */
interface ErrorBody {
  error?: { code?: string; message?: string; details?: Record<string, unknown> };
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** Seconds, from Retry-After on a 429. */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ApiFailure';
  }
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'DELETE' | 'PUT';
  /** JSON-encoded unless it is FormData (multipart uploads). */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export function authHeaders(extra: Record<string, string> = {}): Record<string, string> {
  const session = currentSession();
  return session ? { authorization: `Bearer ${session.apiKey}`, ...extra } : { ...extra };
}

/** Turns a non-2xx response into an ApiFailure; signs out on 401. */
export async function failureOf(response: Response): Promise<ApiFailure> {
  let body: ErrorBody | undefined;
  try {
    body = (await response.json()) as ErrorBody;
  } catch {
    body = undefined;
  }
  const retryAfter = Number(response.headers.get('retry-after')) || undefined;
  const message = body?.error?.message ?? `${response.status} ${response.statusText || 'error'}`;
  const failure = new ApiFailure(response.status, body?.error?.code ?? 'http_error', message, body?.error?.details ?? {}, retryAfter);
  if (response.status === 401) signOut();
  return failure;
}

export async function request(path: string, options: RequestOptions = {}): Promise<Response> {
  const isForm = options.body instanceof FormData;
  const headers = authHeaders({ accept: 'application/json', ...(options.body !== undefined && !isForm ? { 'content-type': 'application/json' } : {}), ...options.headers });
  let response: Response;
  try {
    response = await fetch(path, {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      body: options.body === undefined ? undefined : isForm ? (options.body as FormData) : JSON.stringify(options.body),
      signal: options.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiFailure(0, 'network', 'troupe could not be reached: check that it is running, then try again');
  }
  if (!response.ok) throw await failureOf(response);
  return response;
}

/** A JSON call: `api<Game>('/games/g1')`, `api('/games', {body: {...}})`. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await request(path, options);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

/** A message for people from anything thrown. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return 'something went wrong';
}
