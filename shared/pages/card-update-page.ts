import type { Branding } from '../model/branding.ts';
import { formatMoney } from '../model/money.ts';
import type { CardEntry, OwedLine } from '../model/card-update-link.ts';
import type { TestCardField } from '../model/test-cards.ts';
import { escape, textOn } from './html.ts';

/**
 * The card-update page as HTML (served by the edge API), in the merchant's branding: one column that
 * reads at a phone's width and at 200% zoom, real labels, errors tied to their fields, and nothing
 * that needs a mouse. The Content-Security-Policy comes with it: only the page's own nonce'd style
 * and, for Braintree, its Drop-in script and frames.
 */
export const STRIPE_CHECKOUT_ORIGIN = 'https://checkout.stripe.com';
export const BRAINTREE_SCRIPT = 'https://js.braintreegateway.com/web/dropin/1.43.0/js/dropin.min.js';
const BRAINTREE_ORIGINS = { script: 'https://js.braintreegateway.com', frame: 'https://assets.braintreegateway.com', connect: 'https://api.braintreegateway.com https://client-analytics.braintreegateway.com' };

export interface PageView {
  branding: Branding;
  customerName: string | null;
  owed: readonly OwedLine[];
  entry: CardEntry;
  /** Where the form posts: the page's own address. */
  action: string;
  nonce: string;
}

export interface RenderedPage {
  html: string;
  contentSecurityPolicy: string;
}

function policy(nonce: string, branding: Branding | null, entry: CardEntry | null): string {
  const logo = branding?.logo_url ? new URL(branding.logo_url).origin : null;
  const braintree = entry?.kind === 'braintree_drop_in';
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'${braintree ? ` ${BRAINTREE_ORIGINS.frame}` : ''}`,
    `img-src ${logo ?? "'none'"}${braintree ? ` ${BRAINTREE_ORIGINS.frame} data:` : ''}`,
    ...(braintree
      ? [`script-src 'nonce-${nonce}' ${BRAINTREE_ORIGINS.script}`, `frame-src ${BRAINTREE_ORIGINS.frame}`, `connect-src ${BRAINTREE_ORIGINS.connect}`]
      : []),
    // A form's redirect counts against form-action: Stripe Checkout is where the Stripe button leads.
    `form-action 'self'${entry?.kind === 'stripe_checkout' ? ` ${STRIPE_CHECKOUT_ORIGIN}` : ''}`,
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function styles(nonce: string, accent: string): string {
  return `<style nonce="${nonce}">
*{box-sizing:border-box}
body{margin:0;font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1f;background:#f4f5f7}
main{max-width:32rem;margin:0 auto;padding:1.5rem 1rem 3rem}
header{display:flex;align-items:center;gap:.75rem;margin-bottom:1.25rem}
header img{max-height:2.5rem;max-width:10rem}
.brand{font-size:1.25rem;font-weight:600;margin:0}
.card{background:#fff;border:1px solid #d7d9df;border-radius:.75rem;padding:1.25rem}
h1{font-size:1.375rem;line-height:1.3;margin:0 0 .75rem}
.owed{margin:0 0 1rem;padding:0;list-style:none}
.owed li{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.5rem;padding:.5rem 0;border-bottom:1px solid #eceef2}
.amount{font-weight:600;font-variant-numeric:tabular-nums}
.test{background:#fff4ce;border:2px dashed #8a6100;color:#3d2b00;border-radius:.5rem;padding:.5rem .75rem;margin:0 0 1rem;font-weight:600}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
.hint{display:block;font-weight:400;color:#4a4d57;font-size:.875rem}
input{width:100%;font:inherit;padding:.625rem .75rem;border:1px solid #6b6f7b;border-radius:.5rem;background:#fff;color:inherit}
input[aria-invalid=true]{border:2px solid #b3261e}
.row{display:flex;flex-wrap:wrap;gap:0 1rem}
.row>div{flex:1 1 9rem}
.error{color:#b3261e;font-weight:600;margin:.25rem 0 0}
.alert{border:2px solid #b3261e;border-radius:.5rem;padding:.5rem .75rem;margin:0 0 1rem;color:#8c1d18}
button,.button{display:inline-block;margin-top:1.25rem;width:100%;text-align:center;font:inherit;font-weight:600;padding:.75rem 1rem;border:0;border-radius:.5rem;background:${accent};color:${textOn(accent)};cursor:pointer;text-decoration:none}
:focus-visible{outline:3px solid #1b1b1f;outline-offset:2px}
button:focus-visible,.button:focus-visible{outline:3px solid #1b1b1f;outline-offset:3px}
footer{margin-top:1.5rem;color:#4a4d57;font-size:.875rem}
a{color:#1d4ed8}
</style>`;
}

function document(title: string, nonce: string, branding: Branding | null, body: string, extraHead = ''): string {
  const accent = branding?.accent_color ?? '#2251c8';
  const logo = branding?.logo_url ? `<img src="${escape(branding.logo_url)}" alt="">` : '';
  const header = branding ? `<header>${logo}<p class="brand">${escape(branding.name)}</p></header>` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex">
<title>${escape(title)}</title>${styles(nonce, accent)}${extraHead}</head>
<body><main>${header}<div class="card">${body}</div>${footer(branding)}</main></body></html>`;
}

function footer(branding: Branding | null): string {
  if (!branding?.support_email) return '';
  const email = escape(branding.support_email);
  return `<footer>Questions? Write to <a href="mailto:${email}">${email}</a>.</footer>`;
}

function owedList(owed: readonly OwedLine[]): string {
  if (owed.length === 0) return '<p>Nothing is overdue right now: your new card will be used for your next payment.</p>';
  const lines = owed.map(
    (line) => `<li><span>${escape(line.plan ?? 'Your subscription')}</span><span class="amount">${escape(formatMoney(line.amount, line.currency))}</span></li>`,
  );
  return `<h2 class="hint">Amount due</h2><ul class="owed">${lines.join('')}</ul>`;
}

const FIELD_LABELS: Record<TestCardField, { label: string; hint: string; autocomplete: string; inputmode: string }> = {
  number: { label: 'Card number', hint: 'Test card: 4242 4242 4242 4242', autocomplete: 'cc-number', inputmode: 'numeric' },
  expiry: { label: 'Expiry date', hint: 'MM/YY', autocomplete: 'cc-exp', inputmode: 'numeric' },
  cvc: { label: 'Security code (CVC)', hint: '3 digits on the back, 4 on the front for American Express', autocomplete: 'cc-csc', inputmode: 'numeric' },
};

function field(name: TestCardField, entry: Extract<CardEntry, { kind: 'test_form' }>): string {
  const { label, hint, autocomplete, inputmode } = FIELD_LABELS[name];
  const problem = entry.problem?.field === name ? entry.problem.message : null;
  // The card number is never echoed back into the page; the rest may be.
  const value = name === 'number' ? '' : (entry.values?.[name] ?? '');
  const described = [`${name}-hint`, ...(problem ? [`${name}-error`] : [])].join(' ');
  return `<div><label for="${name}">${label}<span class="hint" id="${name}-hint">${escape(hint)}</span></label>
<input id="${name}" name="${name}" type="text" required autocomplete="${autocomplete}" inputmode="${inputmode}" value="${escape(value)}" aria-describedby="${described}"${problem ? ' aria-invalid="true" autofocus' : ''}>
${problem ? `<p class="error" id="${name}-error">${escape(problem)}</p>` : ''}</div>`;
}

function entryBody(view: PageView): { html: string; head: string } {
  const { entry, nonce } = view;
  switch (entry.kind) {
    case 'test_form':
      return {
        head: '',
        html: `<p class="test" role="note">Test mode: no real card is charged. Use the sandbox's test numbers (4242 4242 4242 4242 succeeds).</p>
${entry.problem ? `<p class="alert" role="alert">${escape(entry.problem.message)}</p>` : ''}
<form method="post" action="${escape(view.action)}" novalidate>
${field('number', entry)}<div class="row">${field('expiry', entry)}${field('cvc', entry)}</div>
<button type="submit">Update card</button></form>`,
      };
    case 'stripe_checkout':
      return {
        head: '',
        html: `${entry.problem ? `<p class="alert" role="alert">${escape(entry.problem)}</p>` : ''}<p>You will enter your card on Stripe's secure page and come back here.</p>
<form method="post" action="${escape(view.action)}"><button type="submit">Update card with Stripe</button></form>`,
      };
    case 'braintree_drop_in':
      return {
        head: `<script nonce="${nonce}" src="${BRAINTREE_SCRIPT}" defer></script>`,
        html: `${entry.problem ? `<p class="alert" role="alert">${escape(entry.problem)}</p>` : ''}<form id="card-form" method="post" action="${escape(view.action)}">
<div id="drop-in"></div><input type="hidden" name="payment_method_nonce" id="nonce"><button type="submit">Update card</button></form>
<script nonce="${nonce}">addEventListener('DOMContentLoaded',function(){var f=document.getElementById('card-form');braintree.dropin.create({authorization:${JSON.stringify(entry.clientToken).replace(/</g, '\\u003c')},container:'#drop-in'},function(e,d){if(e)return;f.addEventListener('submit',function(ev){ev.preventDefault();d.requestPaymentMethod(function(err,p){if(err)return;document.getElementById('nonce').value=p.nonce;f.submit();});});});});</script>`,
      };
    case 'elsewhere':
      return {
        head: '',
        html: entry.paymentUpdateUrl
          ? `<p>Update your card on ${escape(view.branding.name)}'s billing page.</p><a class="button" href="${escape(entry.paymentUpdateUrl)}">Go to the billing page</a>`
          : `<p>${escape(view.branding.name)} updates cards for you: please contact ${view.branding.support_email ? `<a href="mailto:${escape(view.branding.support_email)}">${escape(view.branding.support_email)}</a>` : 'their support'}.</p>`,
      };
    case 'done':
      return {
        head: '',
        html: `<p role="status">Thank you: your card is updated.${entry.retried > 0 ? ` We are trying your payment${entry.retried > 1 ? 's' : ''} again now and will email you if anything else is needed.` : ''}</p>`,
      };
  }
}

export function cardUpdatePage(view: PageView): RenderedPage {
  const greeting = view.customerName ? `${view.customerName}, update` : 'Update';
  const title = view.entry.kind === 'done' ? 'Your card is updated' : `${greeting} your card for ${view.branding.name}`;
  const body = entryBody(view);
  const html = document(title, view.nonce, view.branding, `<h1>${escape(title)}</h1>${view.entry.kind === 'done' ? '' : owedList(view.owed)}${body.html}`, body.head);
  return { html, contentSecurityPolicy: policy(view.nonce, view.branding, view.entry) };
}

/** An unknown or expired link: no JSON, no detail on which, and whom to ask when the link was real. */
export function unusableLinkPage(branding: Branding | null, nonce: string): RenderedPage {
  const ask = branding?.support_email
    ? `Please write to <a href="mailto:${escape(branding.support_email)}">${escape(branding.support_email)}</a> for a new one.`
    : branding
      ? `Please contact ${escape(branding.name)} for a new one.`
      : 'Please use the link in the latest message you received, or contact the company that sent it.';
  const html = document('This link has expired', nonce, branding, `<h1>This link has expired</h1><p>This card-update link no longer works. ${ask}</p>`);
  return { html, contentSecurityPolicy: policy(nonce, branding, null) };
}

/** Too many requests, or the service could not answer: try again. */
export function problemPage(kind: 'rate_limited' | 'unavailable', nonce: string): RenderedPage {
  const [title, text] =
    kind === 'rate_limited'
      ? ['Too many attempts', 'Please wait a minute, then reload this page.']
      : ['Something went wrong', 'We could not load this page. Please try again in a few minutes.'];
  return { html: document(title, nonce, null, `<h1>${title}</h1><p>${text}</p>`), contentSecurityPolicy: policy(nonce, null, null) };
}

/** The page for a request's outcome: what the customer owes and how they give the card. */
export function updatePageView(outcome: { state: { branding: Branding; customer: { name: string | null }; owed: OwedLine[] }; entry: CardEntry }, action: string, nonce: string): RenderedPage {
  const { state, entry } = outcome;
  return cardUpdatePage({ branding: state.branding, customerName: state.customer.name, owed: state.owed, entry, action, nonce });
}
