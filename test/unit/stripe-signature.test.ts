import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { WebhookRejected } from '../../shared/model/processor-event.ts';
import { STRIPE_SIGNATURE_TOLERANCE_SECONDS, verifyStripeSignature } from '../../shared/processors/stripe-signature.ts';

const SECRET = 'whsec_signature_unit_0123456789';
const NOW = 1_900_000_000;
const PAYLOAD = '{"id":"evt_1","object":"event"}';

const hmac = (payload: string, timestamp: number, secret = SECRET): string =>
  createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex');

function refusal(act: () => void): string {
  try {
    act();
  } catch (err) {
    if (err instanceof WebhookRejected) return err.message;
    throw err;
  }
  throw new Error('expected WebhookRejected, but the signature was accepted');
}

const MISMATCH =
  'Stripe signature verification failed: No signatures found matching the expected signature for payload. Are you passing the raw request body you received from Stripe?';

const verify = (header: string | undefined, payload = PAYLOAD, secret = SECRET) => () => verifyStripeSignature(payload, header, secret, NOW);

describe('verifyStripeSignature', () => {
  it('accepts the header Stripe’s own test helper writes', () => {
    const header = Stripe.webhooks.generateTestHeaderString({ payload: PAYLOAD, secret: SECRET, timestamp: NOW });

    expect(verify(header)).not.toThrow();
  });

  it('accepts any one matching v1 signature among several (a secret being rolled), in any position', () => {
    const good = hmac(PAYLOAD, NOW);
    const other = hmac(PAYLOAD, NOW, 'whsec_old_secret');

    expect(verify(`t=${NOW},v1=${other},v1=${good}`)).not.toThrow();
    expect(verify(`t=${NOW},v1=${good},v1=${other},v0=${other}`)).not.toThrow();
  });

  it('checks only v1: a matching signature under another scheme does not count', () => {
    expect(refusal(verify(`t=${NOW},v0=${hmac(PAYLOAD, NOW)}`))).toBe('Stripe signature verification failed: No signatures found with expected scheme');
  });

  it('signs over the timestamp too: the same signature with another t is refused', () => {
    expect(refusal(verify(`t=${NOW - 1},v1=${hmac(PAYLOAD, NOW)}`))).toBe(MISMATCH);
  });

  it('reads the last t, as the package does', () => {
    expect(verify(`t=${NOW - 5000},v1=${hmac(PAYLOAD, NOW)},t=${NOW}`)).not.toThrow();
  });

  it.each([
    [undefined, 'Missing Stripe-Signature header.'],
    ['  ', 'Missing Stripe-Signature header.'],
    ['garbage', 'Stripe signature verification failed: Unable to extract timestamp and signatures from header'],
    [`t=${NOW}x,v1=abc`, 'Stripe signature verification failed: Unable to extract timestamp and signatures from header'],
    [`t=,v1=abc`, 'Stripe signature verification failed: Unable to extract timestamp and signatures from header'],
    [`t=${NOW}`, 'Stripe signature verification failed: No signatures found with expected scheme'],
    [`t=${NOW},v1=`, MISMATCH],
    [`t=${NOW},v1=${hmac(PAYLOAD, NOW).toUpperCase()}`, MISMATCH],
    [`t=${NOW},v1=${hmac(PAYLOAD, NOW)}é`, MISMATCH],
  ])('refuses the header %j', (header, message) => {
    expect(refusal(verify(header))).toBe(message);
  });

  it('refuses an empty payload and a blank secret', () => {
    expect(refusal(verify(`t=${NOW},v1=${hmac('', NOW)}`, ''))).toBe('Stripe signature verification failed: No webhook payload was provided.');
    expect(refusal(verify(`t=${NOW},v1=${hmac(PAYLOAD, NOW, ' ')}`, PAYLOAD, ' '))).toBe(
      'Stripe signature verification failed: No webhook secret value was provided. It should start with `whsec_`',
    );
  });

  it(`bounds the timestamp to ${STRIPE_SIGNATURE_TOLERANCE_SECONDS} s either side of the clock`, () => {
    const at = (t: number) => verify(`t=${t},v1=${hmac(PAYLOAD, t)}`);

    expect(at(NOW - 300)).not.toThrow();
    expect(at(NOW + 300)).not.toThrow();
    expect(refusal(at(NOW - 301))).toBe('Stripe signature verification failed: Timestamp outside the tolerance zone');
    expect(refusal(at(NOW + 301))).toBe('Stripe-Signature timestamp is more than 300 seconds in the future.');
  });

  it('agrees with the stripe package on every header, save for refusing the far future (property)', () => {
    const header = fc.oneof(
      // Well-formed, signed with our secret or another, over this payload or another, at any time around now.
      fc
        .record({
          offset: fc.integer({ min: -600, max: 600 }),
          secret: fc.constantFrom(SECRET, 'whsec_other'),
          tampered: fc.boolean(),
          extra: fc.array(fc.constantFrom('v0=abc', 'v1=00', 'v1=', 'x=1', 'v1'), { maxLength: 2 }),
        })
        .map(({ offset, secret, tampered, extra }) =>
          [`t=${NOW + offset}`, `v1=${hmac(tampered ? `${PAYLOAD} ` : PAYLOAD, NOW + offset, secret)}`, ...extra].join(','),
        ),
      // Anything shaped roughly like a header.
      fc.string({ unit: fc.constantFrom('t', 'v1', 'v0', '=', ',', '1', '9', 'a', ' ') }),
    );
    fc.assert(
      fc.property(header, (value) => {
        const ours = outcome(() => verifyStripeSignature(PAYLOAD, value, SECRET, NOW));
        const theirs = outcome(() => Stripe.webhooks.signature!.verifyHeader(PAYLOAD, value, SECRET, STRIPE_SIGNATURE_TOLERANCE_SECONDS, undefined, NOW * 1000));
        expect(ours).not.toMatch(/^crashed/);
        // The package throws a plain Error on an empty or bare `v1` entry, whatever else the header holds.
        if (theirs.startsWith('crashed')) return;
        if (theirs === 'accepted') {
          // The package has no upper bound on the timestamp: that is the one acceptance we take back.
          expect(ours === 'accepted' || ours.includes('in the future')).toBe(true);
          return;
        }
        expect(ours).not.toBe('accepted');
        // The same reason, except that `t=12x` is unreadable to us where the package reads 12.
        if (ours.endsWith('Unable to extract timestamp and signatures from header') || ours === 'Missing Stripe-Signature header.') return;
        expect(ours.replace('Stripe signature verification failed: ', 'refused: ')).toBe(theirs);
      }),
      { numRuns: 1000 },
    );
  });
});

/** 'accepted', 'refused: <first line of the message>' (the package adds advice after it) or 'crashed: ...'. */
function outcome(act: () => unknown): string {
  try {
    act();
    return 'accepted';
  } catch (err) {
    if (err instanceof WebhookRejected) return err.message;
    if (err instanceof Stripe.errors.StripeSignatureVerificationError) return `refused: ${err.message.split('\n', 1)[0]!.trim()}`;
    return `crashed: ${String(err)}`;
  }
}
