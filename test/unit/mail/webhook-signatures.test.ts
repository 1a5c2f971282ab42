/** Webhook signatures: Mailgun's timestamp+token HMAC and troupe's X-Troupe-Signature, good, bad and stale. */
import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import {
  signGeneric,
  verifyGenericSignature,
  verifyMailgunSignature,
  type MailgunSignature,
  type SignatureCheck,
} from '../../../actors/mail/webhook-signatures.js';

/** The token and timestamp of the example in Mailgun's "Securing Webhooks" page; the key is ours. */
const SIGNING_KEY = 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0';
const TIMESTAMP = '1770920772';
const TOKEN = 'e0b5477167110d68991efc6b9f89f0a11066af27834600e123';
/** Computed here, apart from the code under test, exactly as Mailgun documents it. */
const SIGNATURE = createHmac('sha256', SIGNING_KEY).update(TIMESTAMP + TOKEN).digest('hex');
const AT_SIGNING = Number(TIMESTAMP) * 1000;
const MINUTE = 60 * 1000;

function reasonOf(check: SignatureCheck): string {
  expect(check.ok).to.be.false;
  return check.ok ? '' : check.reason;
}

describe('mail webhook signatures', function () {
  describe('Mailgun', function () {
    const signed: MailgunSignature = { timestamp: TIMESTAMP, token: TOKEN, signature: SIGNATURE };

    it('accepts the signature computed as Mailgun documents it, in either hex case', function () {
      expect(verifyMailgunSignature(signed, SIGNING_KEY, AT_SIGNING)).to.deep.equal({ ok: true });
      expect(verifyMailgunSignature({ ...signed, signature: SIGNATURE.toUpperCase() }, SIGNING_KEY, AT_SIGNING).ok).to.be.true;
    });

    it('rejects a signature made with another key, or over another token or timestamp', function () {
      const otherKey = createHmac('sha256', 'key-other').update(TIMESTAMP + TOKEN).digest('hex');
      expect(reasonOf(verifyMailgunSignature({ ...signed, signature: otherKey }, SIGNING_KEY, AT_SIGNING))).to.match(/does not match/);
      expect(reasonOf(verifyMailgunSignature({ ...signed, token: `${TOKEN}x` }, SIGNING_KEY, AT_SIGNING))).to.match(/does not match/);
      expect(reasonOf(verifyMailgunSignature({ ...signed, timestamp: '1770920773' }, SIGNING_KEY, AT_SIGNING))).to.match(/does not match/);
      expect(reasonOf(verifyMailgunSignature(signed, 'key-wrong', AT_SIGNING))).to.match(/does not match/);
    });

    it('accepts up to 15 minutes of clock difference either way', function () {
      expect(verifyMailgunSignature(signed, SIGNING_KEY, AT_SIGNING + 15 * MINUTE).ok).to.be.true;
      expect(verifyMailgunSignature(signed, SIGNING_KEY, AT_SIGNING - 15 * MINUTE).ok).to.be.true;
    });

    it('rejects as stale beyond 15 minutes, in the past and in the future', function () {
      expect(reasonOf(verifyMailgunSignature(signed, SIGNING_KEY, AT_SIGNING + 15 * MINUTE + 1000))).to.match(/stale/);
      expect(reasonOf(verifyMailgunSignature(signed, SIGNING_KEY, AT_SIGNING - 15 * MINUTE - 1000))).to.match(/stale/);
    });

    it('rejects missing fields', function () {
      for (const field of ['timestamp', 'token', 'signature'] as const) {
        const { [field]: _dropped, ...rest } = signed;
        expect(reasonOf(verifyMailgunSignature(rest as MailgunSignature, SIGNING_KEY, AT_SIGNING)), field).to.match(/missing/);
        expect(reasonOf(verifyMailgunSignature({ ...signed, [field]: '' }, SIGNING_KEY, AT_SIGNING)), field).to.match(/missing/);
      }
      expect(reasonOf(verifyMailgunSignature(undefined as unknown as MailgunSignature, SIGNING_KEY, AT_SIGNING))).to.match(/missing/);
    });

    it('rejects malformed fields and an unconfigured key', function () {
      expect(reasonOf(verifyMailgunSignature({ ...signed, timestamp: '17709e5' }, SIGNING_KEY, AT_SIGNING))).to.match(/malformed timestamp/);
      expect(reasonOf(verifyMailgunSignature({ ...signed, signature: SIGNATURE.slice(0, 63) }, SIGNING_KEY, AT_SIGNING))).to.match(/malformed signature/);
      expect(reasonOf(verifyMailgunSignature({ ...signed, signature: `${SIGNATURE.slice(0, 63)}z` }, SIGNING_KEY, AT_SIGNING))).to.match(/malformed signature/);
      const numbers = { timestamp: 1770920772, token: TOKEN, signature: SIGNATURE } as unknown as MailgunSignature;
      expect(reasonOf(verifyMailgunSignature(numbers, SIGNING_KEY, AT_SIGNING))).to.match(/missing/);
      expect(reasonOf(verifyMailgunSignature(signed, '', AT_SIGNING))).to.match(/no Mailgun signing key/);
    });
  });

  describe('generic X-Troupe-Signature', function () {
    const secret = 'whsec-test-secret';
    const body = '{"from":"alice@example.com","to":"support@troupe.local","subject":"Hi","text":"Hello"}';
    const t = 1_700_000_000;
    const now = t * 1000;
    const expectedHex = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

    it('signs as t=<seconds>,v1=<hex hmac of "t.body">', function () {
      expect(signGeneric(body, secret, t)).to.equal(`t=${t},v1=${expectedHex}`);
    });

    it('accepts its own signature, with spaces after commas and several v1 entries', function () {
      expect(verifyGenericSignature(body, signGeneric(body, secret, t), secret, now)).to.deep.equal({ ok: true });
      expect(verifyGenericSignature(body, `t=${t}, v1=${'0'.repeat(64)}, v1=${expectedHex}`, secret, now).ok).to.be.true;
    });

    it('rejects a changed body, another secret, or a timestamp swapped into the header', function () {
      expect(reasonOf(verifyGenericSignature(`${body} `, signGeneric(body, secret, t), secret, now))).to.match(/does not match/);
      expect(reasonOf(verifyGenericSignature(body, signGeneric(body, 'other', t), secret, now))).to.match(/does not match/);
      expect(reasonOf(verifyGenericSignature(body, `t=${t + 60},v1=${expectedHex}`, secret, now))).to.match(/does not match/);
    });

    it('accepts 15 minutes either way and rejects beyond as stale', function () {
      const header = signGeneric(body, secret, t);
      expect(verifyGenericSignature(body, header, secret, now + 15 * MINUTE).ok).to.be.true;
      expect(verifyGenericSignature(body, header, secret, now - 15 * MINUTE).ok).to.be.true;
      expect(reasonOf(verifyGenericSignature(body, header, secret, now + 16 * MINUTE))).to.match(/stale/);
      expect(reasonOf(verifyGenericSignature(body, header, secret, now - 16 * MINUTE))).to.match(/stale/);
    });

    it('rejects a missing or malformed header and an unconfigured secret', function () {
      expect(reasonOf(verifyGenericSignature(body, undefined, secret, now))).to.match(/missing X-Troupe-Signature/);
      expect(reasonOf(verifyGenericSignature(body, '', secret, now))).to.match(/missing/);
      expect(reasonOf(verifyGenericSignature(body, `v1=${expectedHex}`, secret, now))).to.match(/malformed/);
      expect(reasonOf(verifyGenericSignature(body, `t=${t}`, secret, now))).to.match(/malformed/);
      expect(reasonOf(verifyGenericSignature(body, `t=soon,v1=${expectedHex}`, secret, now))).to.match(/malformed timestamp/);
      expect(reasonOf(verifyGenericSignature(body, `t=${t},v1=abc`, secret, now))).to.match(/malformed signature/);
      expect(reasonOf(verifyGenericSignature(body, signGeneric(body, secret, t), '', now))).to.match(/no webhook secret/);
    });
  });
});
