import { ENROLLMENT_STATUSES, type Enrollment, type EnrollmentListRequest } from '../domain/enrollments.ts';
import type { ListResult } from '../domain/listing.ts';
import { pageOffset, slicePage } from '../domain/pagination.ts';
import type { Tenant } from '../domain/tenant.ts';
import { byCampaignPk, enrollmentFromItem, enrollmentsOf } from './enrollments.ts';
import { compareKeys, readPage, readSegmentPage, segmentTotal, type Segment } from './list-query.ts';

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

/**
 * A campaign's enrollments from gsi3, which groups them by campaign and orders them by status, then
 * enrollment time. The index is eventually consistent: an enrollment made a moment ago may be missing.
 */
export async function campaignEnrollmentsPage(tenant: Tenant, campaignId: string, request: EnrollmentListRequest): Promise<ListResult<Enrollment>> {
  if (request.status !== undefined) {
    const { items, total } = await readPage([statusSegment(tenant, campaignId, request.status)], {}, false, pageOffset(request), request.per_page);
    return { items: items.map(enrollmentFromItem), total };
  }
  // Across statuses, newest first is a merge of the status runs: each gives at most as many of its
  // newest as the page reaches down to, and the merge keeps the page. A run starts at its newest and
  // needs no total, so runs and totals are read together: one round trip.
  const segments = ENROLLMENT_STATUSES.map((status) => statusSegment(tenant, campaignId, status));
  const reach = pageOffset(request) + request.per_page;
  const [totals, runs] = await Promise.all([
    Promise.all(segments.map((segment) => segmentTotal(segment, {}))),
    Promise.all(segments.map((segment) => readSegmentPage(segment, {}, false, 0, reach, Number.POSITIVE_INFINITY))),
  ]);
  const merged = runs.flat().map(enrollmentFromItem).sort(newestFirst);
  return { items: slicePage(merged, request), total: totals.reduce((sum, n) => sum + n, 0) };
}
