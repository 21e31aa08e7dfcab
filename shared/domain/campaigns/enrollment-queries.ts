import { getCampaign } from '../../store/campaigns.ts';
import { getCustomer } from '../../store/customers.ts';
import { campaignEnrollmentsPage, customerEnrollmentsPage } from '../../store/enrollment-lists.ts';
import { enrollmentTotals, type Enrollment, type EnrollmentListRequest } from '../../model/enrollment.ts';
import type { ListResult } from '../../model/listing.ts';
import type { Tenant } from '../../model/tenant.ts';

/**
 * GET /v1/customers/{id}/enrollments: 404 for an unknown customer (401 from the other environment),
 * not an empty list. The customer and the page are read together; the page is dropped when the
 * customer is missing.
 */
export async function listCustomerEnrollments(tenant: Tenant, customerId: string, request: EnrollmentListRequest): Promise<ListResult<Enrollment>> {
  const [, page] = await Promise.all([getCustomer(tenant, customerId), customerEnrollmentsPage(tenant, customerId, request)]);
  return page;
}

/**
 * GET /v1/campaigns/{id}/enrollments: 404 for an unknown campaign, as for the customer's list. The
 * campaign is read beside the page and gives its totals (its counters).
 */
export async function listCampaignEnrollments(tenant: Tenant, campaignId: string, request: EnrollmentListRequest): Promise<ListResult<Enrollment>> {
  const campaign = getCampaign(tenant, campaignId);
  const [, page] = await Promise.all([campaign, campaignEnrollmentsPage(tenant, campaignId, request, campaign.then(enrollmentTotals))]);
  return page;
}
