/**
 * The merchant's payment-update page (merchant setting `payment_update_url`), linked from every
 * dunning message. It goes into emails and sms that customers are asked to act on, so only an
 * absolute https URL to a named host, without credentials, is accepted (docs/decisions.md).
 */
export const PAYMENT_UPDATE_URL_MAX_LENGTH = 2048;

/** Why `value` cannot be the payment-update link, or null when it can. */
export function paymentUpdateUrlProblem(value: string): string | null {
  if (value.length > PAYMENT_UPDATE_URL_MAX_LENGTH) return `must be at most ${PAYMENT_UPDATE_URL_MAX_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:') return 'must be an https URL';
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  // A customer should see a domain they recognise; a bare host or an IP address reads as phishing.
  if (!url.hostname.includes('.') || /^[\d.]+$/.test(url.hostname) || url.hostname.startsWith('[')) return 'must name a domain (not a bare host or an IP address)';
  return null;
}

/** The link as it goes into a message (normalised, so it is percent-encoded), or null when unset or unusable. */
export function safePaymentUpdateUrl(value: string | null): string | null {
  if (value === null || paymentUpdateUrlProblem(value) !== null) return null;
  return new URL(value).href;
}
