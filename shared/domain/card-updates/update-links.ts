import { newId } from '../../ids.ts';
import type { Branding } from '../../model/branding.ts';
import { LINK_TOKEN_PATTERN, linkTokenHash, linkUsable, newLinkToken, type CardUpdateLink, type OwedLine } from '../../model/card-update-link.ts';
import type { CampaignChannel } from '../../model/campaign.ts';
import type { Customer, Subscription } from '../../model/customer.ts';
import type { Enrollment } from '../../model/enrollment.ts';
import { rateLimited } from '../../model/errors.ts';
import { newEvent, type ServiceEvent } from '../../model/events.ts';
import type { Merchant } from '../../model/merchant.ts';
import { isOpen, type Payment } from '../../model/payment.ts';
import { retryAfterSeconds } from '../../model/sliding-window.ts';
import type { Tenant } from '../../model/tenant.ts';
import type { UpdatePageAddress } from '../../ports/update-page.ts';
import { brandingOf } from '../../store/branding.ts';
import { findLink, insertLink, markLinkOpenedWrite } from '../../store/card-update-links.ts';
import { findCustomer } from '../../store/customers.ts';
import { recordEventWrite } from '../../store/events.ts';
import { updatePageClientWindowPk, updatePageLinkWindowPk } from '../../store/keys.ts';
import { findMerchant } from '../../store/merchants.ts';
import { paymentsOfCustomer } from '../../store/payments.ts';
import { admitRequest } from '../../store/rate-limits.ts';
import { transact } from '../../store/transactions.ts';

/**
 * Personal card-update links: one made for each dunning message, and what opening one shows. The
 * token is the credential and is never logged or stored; the link id is.
 */

/** Requests one link may take a minute: a customer needs a few (the page, a submit, a correction). */
export const REQUESTS_PER_LINK_PER_WINDOW = 20;
/** Requests one client address may take a minute, whichever links: more is someone trying tokens. */
export const REQUESTS_PER_CLIENT_PER_WINDOW = 60;

/** A link that no longer opens the page (or never did): the page says whom to ask, when it knows. */
export class LinkUnusable extends Error {
  constructor(readonly branding: Branding | null) {
    super('The card-update link is unknown or expired');
    this.name = 'LinkUnusable';
  }
}

/** The link a dunning message carries, stored before the message is sent so it works the moment it arrives. */
export async function issueUpdateLink(
  ports: { updatePage: UpdatePageAddress },
  tenant: Tenant,
  enrollment: Pick<Enrollment, 'customer_id' | 'campaign_id' | 'id' | 'payment_id'>,
  channel: CampaignChannel,
  now: Date,
): Promise<{ url: string; link: CardUpdateLink }> {
  const token = newLinkToken();
  const link: CardUpdateLink = {
    link_id: newId('cul', now),
    merchant_id: tenant.merchantId,
    environment: tenant.environment,
    customer_id: enrollment.customer_id,
    campaign_id: enrollment.campaign_id,
    enrollment_id: enrollment.id,
    payment_id: enrollment.payment_id,
    channel,
    issued_at: now.toISOString(),
    opened_at: null,
  };
  await insertLink(linkTokenHash(token), link);
  return { url: ports.updatePage.linkFor(token), link };
}

/** A funnel event of a link (sent, opened, card updated), naming its campaign and enrollment for campaign analytics. */
export function linkEvent(tenant: Tenant, type: 'card_update.link_sent' | 'card_update.page_opened' | 'card_update.completed', link: CardUpdateLink, now: Date): ServiceEvent {
  const { link_id, campaign_id, enrollment_id, customer_id, payment_id, channel } = link;
  return newEvent(tenant, type, { link_id, campaign_id, enrollment_id, customer_id, payment_id, channel }, now);
}

export const linkTenant = (link: CardUpdateLink): Tenant => ({ merchantId: link.merchant_id, environment: link.environment });

/** Everything the card-update page shows and acts on. */
export interface UpdatePageState {
  tenant: Tenant;
  tokenHash: string;
  link: CardUpdateLink;
  customer: Customer;
  merchant: Merchant | undefined;
  branding: Branding;
  owed: OwedLine[];
  /** The processor the customer pays through (their open failures'). */
  psp: string;
  /** The subscription the link's failure is for, at the processor: the new card becomes its payment method. */
  pspSubscriptionId: string | null;
}

async function admit(windowPk: string, limit: number, now: Date): Promise<void> {
  const outcome = await admitRequest(windowPk, limit, now.getTime());
  if (!outcome.admitted) throw rateLimited(retryAfterSeconds(outcome.counts, limit, now.getTime()));
}

function planOf(payment: Payment, subscriptions: readonly Subscription[]): string | null {
  return subscriptions.find((subscription) => subscription.id === payment.subscription_id)?.plan ?? null;
}

/**
 * The page behind a token, after both rate limits (the client's first: anything it sends counts).
 * Unknown, expired, and an erased customer's links all answer LinkUnusable, which tells nothing
 * about which (with the merchant's branding when the link was real, so the page names whom to ask).
 */
export async function readUpdatePage(token: string, clientIp: string | undefined, now: Date): Promise<UpdatePageState> {
  await admit(updatePageClientWindowPk(clientIp ?? 'unknown'), REQUESTS_PER_CLIENT_PER_WINDOW, now);
  if (!LINK_TOKEN_PATTERN.test(token)) throw new LinkUnusable(null);
  const tokenHash = linkTokenHash(token);
  await admit(updatePageLinkWindowPk(tokenHash), REQUESTS_PER_LINK_PER_WINDOW, now);
  const link = await findLink(tokenHash);
  if (!link) throw new LinkUnusable(null);
  const tenant = linkTenant(link);
  const [customer, branding, merchant] = await Promise.all([findCustomer(tenant, link.customer_id), brandingOf(tenant), findMerchant(tenant.merchantId)]);
  if (!customer || !linkUsable(link, customer, now)) throw new LinkUnusable(branding);
  const { open, psp, pspSubscriptionId } = await linkFailure(tenant, customer, link);
  const owed = open.map((payment) => ({ amount: payment.amount, currency: payment.currency, plan: planOf(payment, customer.subscriptions) }));
  return { tenant, tokenHash, link, customer, merchant, branding, owed, psp, pspSubscriptionId };
}

/** The customer's open failures, and the processor and subscription of the one the link is for (else the first). */
export async function linkFailure(tenant: Tenant, customer: Customer, link: CardUpdateLink): Promise<{ open: Payment[] } & Pick<UpdatePageState, 'psp' | 'pspSubscriptionId'>> {
  const open = (await paymentsOfCustomer(tenant, customer.id)).filter((payment) => isOpen(payment.status));
  const failure = open.find((payment) => payment.id === link.payment_id) ?? open[0];
  return { open, psp: failure?.psp ?? customer.psp, pspSubscriptionId: failure?.psp_subscription_id ?? null };
}

/** GET of the page: the first opening of a link is a funnel stage, recorded once. */
export async function openUpdatePage(token: string, clientIp: string | undefined, now: Date): Promise<UpdatePageState> {
  const page = await readUpdatePage(token, clientIp, now);
  // A transaction that does not commit met another request's first opening, which recorded the event.
  if (page.link.opened_at === null) {
    await transact([markLinkOpenedWrite(page.tokenHash, now), recordEventWrite(page.tenant, linkEvent(page.tenant, 'card_update.page_opened', page.link, now))]);
  }
  return page;
}
