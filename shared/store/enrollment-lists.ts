import { ENROLLMENT_STATUSES, type Enrollment, type EnrollmentListRequest, type EnrollmentStatus, type EnrollmentTotals } from '../model/enrollment.ts';
import type { ListResult } from '../model/listing.ts';
import { pageOffset, slicePage } from '../model/pagination.ts';
import type { Tenant } from '../model/tenant.ts';
import { byCampaignPk, enrollmentFromItem, enrollmentsOf } from './enrollments.ts';
import { compareKeys, readSegmentPage, segmentTotal, type Segment } from './list-query.ts';

/** Newest first; enrollments of the same instant by id (ids carry their creation time). */
const newestFirst = (a: Enrollment, b: Enrollment): number =>
  compareKeys(`${b.enrolled_at}#${b.id}`, `${a.enrolled_at}#${a.id}`);

/**
 * A customer's enrollments: one key-range query of the tenant partition (`ENROLLMENT#<customer>#`),
 * consistent, and small enough (one per failure and campaign) to filter and order in memory.
 */
export async function customerEnrollmentsPage(tenant: Tenant, customerId: string, request: EnrollmentListRequest): Promise<ListResult<Enrollment>> {
  const matching = (await enrollmentsOf(tenant, customerId))
    .filter((enrollment) => request.status === undefined || enrollment.status === request.status)
    .sort(newestFirst);
  return { items: slicePage(matching, request), total: matching.length };
}

/** One status of a campaign's enrollments on gsi3 (`<status>#<enrolled_at>#<id>`), read backwards for newest first. */
const statusSegment = (tenant: Tenant, campaignId: string, status: EnrollmentStatus): Segment => ({
  index: 'gsi3',
  partition: byCampaignPk(tenant, campaignId),
  prefix: `${status}#`,
  narrow: false,
});

/** All of a campaign's enrollments on gsi2 (`<enrolled_at>#<id>`), read backwards for newest first. */
const campaignSegment = (tenant: Tenant, campaignId: string): Segment => ({
  index: 'gsi2',
  partition: byCampaignPk(tenant, campaignId),
  prefix: '',
  narrow: false,
});

/** What the campaign's counters say the list holds: one status's count, or all of them. */
function countedTotal(known: EnrollmentTotals, status: EnrollmentStatus | undefined): number {
  return status === undefined ? ENROLLMENT_STATUSES.reduce((sum, each) => sum + known[each], 0) : known[status];
}

/**
 * A campaign's enrollments, newest first: one status from gsi3, all of them from gsi2. The indexes
 * are eventually consistent: an enrollment made a moment ago may be missing. Totals come from the
 * campaign's counters (`knownTotals`, being read meanwhile), so a list costs its page whatever the
 * campaign's size; without them (undefined: campaigns from before the counters) the index is counted.
 * The counters are moved by the enrollments' own transactions, so for a moment after a change they
 * may be one ahead of the index.
 */
export async function campaignEnrollmentsPage(
  tenant: Tenant,
  campaignId: string,
  request: EnrollmentListRequest,
  knownTotals: Promise<EnrollmentTotals | undefined>,
): Promise<ListResult<Enrollment>> {
  const offset = pageOffset(request);
  const segment = request.status === undefined ? campaignSegment(tenant, campaignId) : statusSegment(tenant, campaignId, request.status);
  // A first page starts at the newest and needs no total; a later one is placed by it (from the nearer end).
  const [known, opening] = await Promise.all([
    knownTotals,
    offset === 0 ? readSegmentPage(segment, {}, false, 0, request.per_page, Number.POSITIVE_INFINITY) : undefined,
  ]);
  const total = known ? countedTotal(known, request.status) : await segmentTotal(segment, {});
  const items = opening ?? (await readSegmentPage(segment, {}, false, offset, request.per_page, total));
  return { items: items.map(enrollmentFromItem), total };
}
