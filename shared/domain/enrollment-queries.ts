import { getCampaign } from '../store/campaigns.ts';
import { getCustomer } from '../store/customers.ts';
import { campaignEnrollmentsPage, customerEnrollmentsPage } from '../store/enrollment-lists.ts';
import type { Enrollment, EnrollmentListRequest } from './enrollments.ts';
import type { ListResult } from './listing.ts';
import type { Tenant } from './tenant.ts';

/** GET /v1/customers/{id}/enrollments: 404 for an unknown customer (401 from the other environment), not an empty list. */
export async function listCustomerEnrollments(tenant: Tenant, customerId: string, request: EnrollmentListRequest): Promise<ListResult<Enrollment>> {
  await getCustomer(tenant, customerId);
  return customerEnrollmentsPage(tenant, customerId, request);
}

/** GET /v1/campaigns/{id}/enrollments: 404 for an unknown campaign, as for the customer's list. */
export async function listCampaignEnrollments(tenant: Tenant, campaignId: string, request: EnrollmentListRequest): Promise<ListResult<Enrollment>> {
  await getCampaign(tenant, campaignId);
  return campaignEnrollmentsPage(tenant, campaignId, request);
}
