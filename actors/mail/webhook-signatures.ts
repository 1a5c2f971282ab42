/**
 * Proof that an inbound-mail webhook came from the provider, not from whoever found the URL. Mailgun
 * signs `timestamp + token` with the account's webhook signing key; troupe's own generic JSON webhook
 * signs `t.rawBody` (Stripe-style header). Both reject timestamps more than 15 minutes away from now, so a
 * captured request cannot be replayed later, and compare in constant time so the check leaks nothing.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

export type MailgunSignature = { timestamp: string; token: string; signature: string };

/** How far a signed timestamp may be from the receiver's clock, either way. */
export const SIGNATURE_TOLERANCE_SECONDS = 15 * 60;

/** The header troupe's generic JSON webhook is signed in: `t=<unix seconds>,v1=<hex hmac-sha256 of "t.rawBody">`. */
export const GENERIC_SIGNATURE_HEADER = 'X-Troupe-Signature';

const UNIX_SECONDS = /^\d{1,12}$/;
const SHA256_HEX = /^[0-9a-f]{64}$/i;

function hmacHex(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload, 'utf8').digest('hex');
}

/** Equal hex digests, in time that does not depend on where they differ. */
function sameDigest(expectedHex: string, givenHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'hex');
  const given = Buffer.from(givenHex, 'hex');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

function freshness(timestampSeconds: number, now: number): SignatureCheck {
  const skew = Math.abs(now / 1000 - timestampSeconds);
  if (skew > SIGNATURE_TOLERANCE_SECONDS) {
    return { ok: false, reason: `stale timestamp: ${Math.round(skew)} s from now, more than ${SIGNATURE_TOLERANCE_SECONDS} s allowed` };
  }
  return { ok: true };
}

/** A Mailgun webhook's `signature` object: hex HMAC-SHA256 of `timestamp + token` under the webhook signing key. */
export function verifyMailgunSignature(input: MailgunSignature, signingKey: string, now: number = Date.now()): SignatureCheck {
  if (!signingKey) return { ok: false, reason: 'no Mailgun signing key is configured' };
  const { timestamp, token, signature }: Partial<MailgunSignature> = input ?? {};
  if (typeof timestamp !== 'string' || typeof token !== 'string' || typeof signature !== 'string' || !timestamp || !token || !signature) {
    return { ok: false, reason: 'missing signature fields: timestamp, token and signature are required' };
  }
  if (!UNIX_SECONDS.test(timestamp)) return { ok: false, reason: 'malformed timestamp: expected unix seconds' };
  if (!SHA256_HEX.test(signature)) return { ok: false, reason: 'malformed signature: expected 64 hex digits' };
  const fresh = freshness(Number(timestamp), now);
  if (!fresh.ok) return fresh;
  if (!sameDigest(hmacHex(signingKey, timestamp + token), signature)) return { ok: false, reason: 'signature does not match' };
  return { ok: true };
}

/** The `X-Troupe-Signature` value for `rawBody` sent at `timestamp` (unix seconds). */
export function signGeneric(rawBody: string, secret: string, timestamp: number): string {
  const t = Math.floor(timestamp);
  return `t=${t},v1=${hmacHex(secret, `${t}.${rawBody}`)}`;
}

/**
 * An `X-Troupe-Signature` header against the exact bytes received. Several `v1=` entries are allowed
 * (a sender rotating secrets signs with both); one match is enough.
 */
export function verifyGenericSignature(
  rawBody: string,
  header: string | undefined,
  secret: string,
  now: number = Date.now(),
): SignatureCheck {
  if (!secret) return { ok: false, reason: 'no webhook secret is configured' };
  if (!header || header.trim() === '') return { ok: false, reason: `missing ${GENERIC_SIGNATURE_HEADER} header` };
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') timestamp = value;
    else if (key === 'v1') signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) {
    return { ok: false, reason: `malformed ${GENERIC_SIGNATURE_HEADER} header: expected t=<unix seconds>,v1=<hex>` };
  }
  if (!UNIX_SECONDS.test(timestamp)) return { ok: false, reason: 'malformed timestamp: expected unix seconds' };
  const wellFormed = signatures.filter((signature) => SHA256_HEX.test(signature));
  if (wellFormed.length === 0) return { ok: false, reason: 'malformed signature: expected 64 hex digits' };
  const fresh = freshness(Number(timestamp), now);
  if (!fresh.ok) return fresh;
  const expected = hmacHex(secret, `${timestamp}.${rawBody}`);
  if (!wellFormed.some((signature) => sameDigest(expected, signature))) return { ok: false, reason: 'signature does not match' };
  return { ok: true };
}
