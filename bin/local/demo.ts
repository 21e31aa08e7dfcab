import { readFileSync } from 'node:fs';
import { runtime } from '../../shared/runtime.ts';
import { signingSecretsOf } from '../../shared/domain/cancel-flows/cancel-signing-lifecycle.ts';
import { authHash, currentSecret } from '../../shared/domain/cancel-flows/cancel-signing.ts';
import type { Environment } from '../../shared/model/tenant.ts';

/** The widget's source, read per request so edits show on reload. */
const WIDGET_FILE = new URL('../../shared/widget/cancel-widget.js', import.meta.url);

export function widgetScript(): string {
  return readFileSync(WIDGET_FILE, 'utf8');
}

const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char]!);

/**
 * The start's signature, made as the demo merchant's server would make it for the signed-in
 * subscriber (README, "Signing the start"). Another merchant's page (`?merchant=`) is not signed:
 * its test-mode flow runs without one, its live one refuses.
 */
async function demoSignature(merchant: string, demoMerchantId: string | undefined, ids: { environment: Environment; customer: string; subscription: string }) {
  if (merchant !== demoMerchantId) return undefined;
  const secrets = await signingSecretsOf({ merchantId: merchant, environment: ids.environment }, runtime.clock.now());
  return authHash(currentSecret(secrets).secret, ids.customer, ids.subscription);
}

/**
 * /demo/cancel: a mock account page embedding the widget as a merchant would. By default it runs the
 * seeded demo merchant's test-mode flow for a subscriber the service does not know; `?customer=`
 * and `?subscription=` (the merchant's processor ids), `?merchant=` and `?environment=` change that.
 */
export async function demoPage(query: URLSearchParams, demoMerchantId: string | undefined): Promise<string> {
  const merchant = query.get('merchant') ?? demoMerchantId ?? '';
  const customer = query.get('customer') ?? 'demo_customer';
  const subscription = query.get('subscription') ?? 'demo_subscription';
  const environment = query.get('environment') === 'live' ? 'live' : 'test';
  const signature = await demoSignature(merchant, demoMerchantId, { environment, customer, subscription });
  const attribute = (name: string, value: string) => `data-${name}="${escapeHtml(value)}"`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Your account - cancel widget demo</title>
<style>
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f6f8fa; color: #1f2328; }
  main { max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }
  .card { background: #fff; border: 1px solid #d0d7de; border-radius: 12px; padding: 1.25rem; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; }
  dt { color: #57606a; }
  #outcome:empty { display: none; }
  #outcome { margin-top: 1rem; padding: 0.75rem; border-radius: 8px; background: #dafbe1; }
</style>
</head>
<body>
<main>
  <h1>Your account</h1>
  <section class="card" aria-labelledby="plan-title">
    <h2 id="plan-title">Pro plan</h2>
    <dl>
      <dt>Customer</dt><dd>${escapeHtml(customer)}</dd>
      <dt>Subscription</dt><dd>${escapeHtml(subscription)}</dd>
      <dt>Mode</dt><dd>${environment}</dd>
    </dl>
    <script src="/cancel-widget.js" ${attribute('merchant', merchant)} ${attribute('customer', customer)} ${attribute('subscription', subscription)}${signature ? ` ${attribute('auth-hash', signature)}` : ''} ${attribute('environment', environment)}></script>
    <p id="outcome" role="status"></p>
  </section>
</main>
<script>
  document.addEventListener('cancel-flow:complete', function (event) {
    document.getElementById('outcome').textContent = 'Cancel flow finished: ' + event.detail.outcome + ' (session ' + event.detail.sessionId + ')';
  });
</script>
</body>
</html>
`;
}
