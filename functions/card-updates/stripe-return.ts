import { cardSetup } from '#shared/composition/card-setup';
import { keyVault } from '#shared/composition/key-vault';
import { scheduler } from '#shared/composition/scheduler';
import { updatePage } from '#shared/composition/update-page';
import { completeStripeReturn } from '#shared/domain/card-updates/card-update-page';
import { stripeReturnQuery } from '#shared/http/card-update-schemas';
import { linkTokenParam, pageHandler } from '#shared/http/page-handler';
import { updatePageView } from '#shared/pages/card-update-page';

/** GET /update/{token}/stripe-return: where Stripe Checkout sends the customer back; completes the update as Stripe's event does. */
export const handler = pageHandler({ params: linkTokenParam, query: stripeReturnQuery }, async ({ params, query, now, clientIp, nonce }) => {
  const outcome = await completeStripeReturn({ scheduler, cardSetup, keyVault, updatePage }, params.token, query.session_id, clientIp, now);
  return { status: 200, page: updatePageView(outcome, updatePage.linkFor(params.token), nonce) };
});
