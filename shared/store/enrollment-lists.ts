import { ENROLLMENT_STATUSES, type Enrollment, type EnrollmentListRequest, type EnrollmentStatus, type EnrollmentTotals } from '../domain/enrollments.ts';
import type { ListResult } from '../domain/listing.ts';
import { pageOffset, slicePage } from '../domain/pagination.ts';
import type { Tenant } from '../domain/tenant.ts';
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
const statusSegment = (tenant: Tenant, campaignId: string, status: string): Segment => ({
  index: 'gsi3',
  partition: byCampaignPk(tenant, campaignId),
  prefix: `${status}#`,
  narrow: false,
});

/** A total the campaign's counters give, or else the index's count (campaigns from before the counters). */
async function totalOf(known: EnrollmentTotals | undefined, status: EnrollmentStatus, segment: Segment): Promise<number> {
  return known ? known[status] : segmentTotal(segment, {});
}

/**
 * A campaign's enrollments from gsi3, which groups them by campaign and orders them by status, then
 * enrollment time. The index is eventually consistent: an enrollment made a moment ago may be missing.
 * Totals come from the campaign's counters (`knownTotals`, being read meanwhile), so a list costs its
 * page whatever the campaign's size; without them (undefined) the index is counted. The counters are
 * moved by the enrollments' own transactions, so for a moment after a change they may be one ahead of
 * the index.
 */
export async function campaignEnrollmentsPage(
  tenant: Tenant,
  campaignId: string,
  request: EnrollmentListRequest,
  knownTotals: Promise<EnrollmentTotals | undefined>,
): Promise<ListResult<Enrollment>> {
  const offset = pageOffset(request);
  if (request.status !== undefined) {
    const status = request.status;
    const segment = statusSegment(tenant, campaignId, status);
    // A first page starts at the newest and needs no total; a later one is placed by it (from the nearer end).
    const [known, opening] = await Promise.all([
      knownTotals,
      offset === 0 ? readSegmentPage(segment, {}, false, 0, request.per_page, Number.POSITIVE_INFINITY) : undefined,
    ]);
    const total = await totalOf(known, status, segment);
    const items = opening ?? (await readSegmentPage(segment, {}, false, offset, request.per_page, total));
    return { items: items.map(enrollmentFromItem), total };
  }
  // Across statuses, newest first is a merge of the status runs: each gives at most as many of its
  // newest as the page reaches down to, and the merge keeps the page. A run starts at its newest and
  // needs no total, so runs and totals are read together.
  const segments = ENROLLMENT_STATUSES.map((status) => statusSegment(tenant, campaignId, status));
  const reach = offset + request.per_page;
  const [known, runs] = await Promise.all([
    knownTotals,
    Promise.all(segments.map((segment) => readSegmentPage(segment, {}, false, 0, reach, Number.POSITIVE_INFINITY))),
  ]);
  const totals = await Promise.all(ENROLLMENT_STATUSES.map((status, i) => totalOf(known, status, segments[i]!)));
  const merged = runs.flat().map(enrollmentFromItem).sort(newestFirst);
  return { items: slicePage(merged, request), total: totals.reduce((sum, n) => sum + n, 0) };
}
