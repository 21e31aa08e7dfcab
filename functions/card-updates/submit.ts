import { cardSetup } from '#shared/composition/card-setup';
import { keyVault } from '#shared/composition/key-vault';
import { scheduler } from '#shared/composition/scheduler';
import { updatePage } from '#shared/composition/update-page';
import { submitCard } from '#shared/domain/card-updates/card-update-page';
import { submittedCardForm } from '#shared/http/card-update-schemas';
import { linkTokenParam, pageHandler } from '#shared/http/page-handler';
import { updatePageView } from '#shared/pages/card-update-page';

/** POST /update/{token}: the test-mode card, Braintree's nonce, or the start of Stripe Checkout (a redirect). */
export const handler = pageHandler({ params: linkTokenParam, form: submittedCardForm }, async ({ params, form, now, clientIp, nonce }) => {
  const outcome = await submitCard({ scheduler, cardSetup, keyVault, updatePage }, params.token, form, clientIp, now);
  if ('redirect' in outcome) return { status: 303, location: outcome.redirect };
  const refused = outcome.entry.kind !== 'done' && 'problem' in outcome.entry && outcome.entry.problem !== undefined;
  return { status: refused ? 422 : 200, page: updatePageView(outcome, updatePage.linkFor(params.token), nonce) };
});
