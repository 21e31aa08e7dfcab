import { cardSetup } from '#shared/composition/card-setup';
import { keyVault } from '#shared/composition/key-vault';
import { updatePage } from '#shared/composition/update-page';
import { showUpdatePage } from '#shared/domain/card-updates/card-update-page';
import { linkTokenParam, pageHandler } from '#shared/http/page-handler';
import { updatePageView } from '#shared/pages/card-update-page';

/** GET /update/{token}: the customer's card-update page, in the merchant's branding (HTML). */
export const handler = pageHandler({ params: linkTokenParam }, async ({ params, now, clientIp, nonce }) => {
  const outcome = await showUpdatePage({ cardSetup, keyVault }, params.token, clientIp, now);
  return { status: 200, page: updatePageView(outcome, updatePage.linkFor(params.token), nonce) };
});
