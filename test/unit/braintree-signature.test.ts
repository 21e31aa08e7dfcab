import braintree from 'braintree';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WebhookRejected } from '../../shared/model/processor-event.ts';
import { verifyBraintreeSignature } from '../../shared/processors/braintree-signature.ts';
import { signBraintreePayload, signedBraintreeNotification } from '../support/braintree-signing.ts';

const KEYS = { publicKey: 'public_sig_unit', privateKey: 'private_sig_unit_0123456789' };
const OTHER_KEYS = { publicKey: 'public_other_key', privateKey: 'private_other_0123456789' };
const { bt_payload: PAYLOAD } = signedBraintreeNotification('<notification><kind>check</kind></notification>', KEYS);

/** The package's verdict on the signature: its parse refuses with an invalidSignatureError, or goes on to read the XML. */
const official = new braintree.BraintreeGateway({ environment: braintree.Environment.Sandbox, merchantId: 'merchant_sig_unit', ...KEYS });
async function packageVerdict(signature: string, payload: string): Promise<string> {
  try {
    await official.webhookNotification.parse(signature, payload);
  } catch (err) {
    if (err instanceof Error && err.name === 'invalidSignatureError') return err.message;
  }
  return 'accepted';
}

function verdict(signature: string, payload: string): string {
  try {
    verifyBraintreeSignature(signature, payload, KEYS);
    return 'accepted';
  } catch (err) {
    if (err instanceof WebhookRejected) return err.message.replace('Braintree signature verification failed: ', '');
    throw err;
  }
}

describe('verifyBraintreeSignature', () => {
  it('accepts our public key’s pair among several, in any position', () => {
    const ours = signBraintreePayload(PAYLOAD, KEYS);
    const theirs = signBraintreePayload(PAYLOAD, OTHER_KEYS);

    expect(verdict(`${theirs}&${ours}`, PAYLOAD)).toBe('accepted');
    expect(verdict(`${ours}&${theirs}`, PAYLOAD)).toBe('accepted');
    expect(verdict(`junk&${ours}`, PAYLOAD)).toBe('accepted');
  });

  it('checks only the first pair naming our public key', () => {
    const wrong = `${KEYS.publicKey}|${'0'.repeat(40)}`;

    expect(verdict(`${wrong}&${signBraintreePayload(PAYLOAD, KEYS)}`, PAYLOAD)).toBe('signature does not match payload - one has been modified');
  });

  it('accepts a payload whose final newline was lost on the way, as the package does', () => {
    const signature = signBraintreePayload(PAYLOAD, KEYS);

    expect(PAYLOAD.endsWith('\n')).toBe(true);
    expect(verdict(signature, PAYLOAD.slice(0, -1))).toBe('accepted');
  });

  it.each([
    ['', PAYLOAD, 'signature parameter is required'],
    [signBraintreePayload(PAYLOAD, KEYS), '', 'payload parameter is required'],
    [signBraintreePayload(PAYLOAD, KEYS), `${PAYLOAD} `, 'payload contains illegal characters'],
    [signBraintreePayload(PAYLOAD, KEYS), `${PAYLOAD}<`, 'payload contains illegal characters'],
    [signBraintreePayload(PAYLOAD, OTHER_KEYS), PAYLOAD, 'no matching public key'],
    [`${KEYS.publicKey}`, PAYLOAD, 'no matching public key'],
    [`${KEYS.publicKey}|`, PAYLOAD, 'no matching public key'],
    [signBraintreePayload(PAYLOAD, KEYS).toUpperCase().replace(KEYS.publicKey.toUpperCase(), KEYS.publicKey), PAYLOAD, 'signature does not match payload - one has been modified'],
    [signBraintreePayload(PAYLOAD, { ...KEYS, privateKey: 'another_private' }), PAYLOAD, 'signature does not match payload - one has been modified'],
  ])('refuses %j over the payload %j', (signature, payload, reason) => {
    expect(verdict(signature, payload)).toBe(reason);
  });

  it('agrees with the braintree package on every signature and payload (property)', async () => {
    const pair = fc.oneof(
      fc.constant(signBraintreePayload(PAYLOAD, KEYS)),
      fc.constant(signBraintreePayload(`${PAYLOAD}\n`, KEYS)),
      fc.constant(signBraintreePayload(PAYLOAD, OTHER_KEYS)),
      fc.constant(signBraintreePayload(PAYLOAD.slice(1), KEYS)),
      fc.string({ unit: fc.constantFrom('|', '&', 'a', '0', KEYS.publicKey) }),
    );
    const signature = fc.array(pair, { maxLength: 3 }).map((pairs) => pairs.join('&'));
    const payload = fc.oneof(
      fc.constantFrom(PAYLOAD, PAYLOAD.trimEnd(), `${PAYLOAD}\n`, `${PAYLOAD}=`, ''),
      fc.string({ unit: fc.constantFrom('A', 'b', '+', '/', '=', '\n', ' ', '<') }),
    );
    await fc.assert(
      fc.asyncProperty(signature, payload, async (sig, body) => {
        expect(verdict(sig, body)).toBe(await packageVerdict(sig, body));
      }),
      { numRuns: 1000 },
    );
  });
});
