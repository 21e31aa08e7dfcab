import { monotonicMs } from '../../ports/clock.ts';
import { findCampaignVersion, listCampaignItems, tenantsWithCalendarCampaigns } from '../../store/campaigns.ts';
import { calendarCandidates, findCustomer } from '../../store/customers.ts';
import { enrollmentKey, existingEnrollments, type EnrollmentRef } from '../../store/enrollments.ts';
import { calendarOccasions, calendarScanRange } from './calendar-triggers.ts';
import { isCalendarTrigger, type CalendarTrigger, type Campaign, type CampaignVersion } from '../../model/campaign.ts';
import type { Customer } from '../../model/customer.ts';
import { enroll, type DunningPorts } from './dunning.ts';
import type { Tenant } from '../../model/tenant.ts';
import type { CalendarOccasion } from '../../model/enrollment.ts';

/**
 * The daily calendar scan (card_expiring, pre_dunning). A recurring schedule runs the sweep once a
 * day; the sweep queues one calendar-scan job per tenant with an active calendar campaign, so each
 * tenant runs in an invocation of its own (its own time limit and retries) and one tenant's trouble
 * holds up no other. A tenant's job reads only the customers the calendar index files under the
 * expiry months in play, and enrolls each occasion once (enrollments are keyed by it).
 */

export interface CalendarScanJob {
  /** The sweep's day (`YYYY-MM-DD`, UTC): it names the jobs, so a repeated sweep moves the same ones. */
  day: string;
  /** 0 for the sweep's job, then +1 for each continuation. */
  part: number;
  /** Where a continuation resumes the candidates; null to start at the beginning. */
  cursor: Record<string, unknown> | null;
}

export const calendarScanJobId = (tenant: Tenant, day: string, part: number): string =>
  `cal.${tenant.merchantId}.${tenant.environment}.${day.replaceAll('-', '')}.${part}`;

async function queueScan(ports: DunningPorts, tenant: Tenant, job: CalendarScanJob, now: Date): Promise<void> {
  await ports.scheduler.schedule({ id: calendarScanJobId(tenant, job.day, job.part), kind: 'calendar-scan', runAt: now, tenant, payload: { ...job } });
}

/** Schedules created at once: enough to queue thousands of tenants well inside the sweep's time limit. */
const SWEEP_CONCURRENCY = 10;

/** The recurring job: a scan job, due now, for every tenant with an active calendar campaign. */
export async function sweepCalendar(ports: DunningPorts, scheduledTime: Date, now: Date): Promise<{ day: string; tenants: number }> {
  const day = scheduledTime.toISOString().slice(0, 10);
  const tenants = await tenantsWithCalendarCampaigns();
  for (let i = 0; i < tenants.length; i += SWEEP_CONCURRENCY) {
    await Promise.all(tenants.slice(i, i + SWEEP_CONCURRENCY).map((tenant) => queueScan(ports, tenant, { day, part: 0, cursor: null }, now)));
  }
  return { day, tenants: tenants.length };
}

export interface ScanLimits {
  /** Candidates read per index query. */
  pageSize: number;
  /** A new page starts only this long after the job began; the rest continues in a follow-up job. */
  budgetMs: number;
}

/** A job has 60 s; starting pages only in the first 30 leaves room for the last page's enrollments. */
const DEFAULT_LIMITS: ScanLimits = { pageSize: 100, budgetMs: 30_000 };

export interface ScanReport {
  campaigns: number;
  customers: number;
  enrolled: number;
  /** More candidates are left for a follow-up job. */
  continued: boolean;
}

interface Candidate {
  customer: Customer;
  campaign: Campaign;
  occasion: CalendarOccasion;
}

const refOf = ({ customer, campaign, occasion }: Candidate): EnrollmentRef => ({
  customer_id: customer.id,
  payment_id: null,
  campaign_id: campaign.id,
  calendar: occasion,
});

/** One tenant's scan: enrolls every customer a calendar campaign is due to enroll today and has not yet. */
export async function scanCalendar(ports: DunningPorts, tenant: Tenant, job: CalendarScanJob, now: Date, limits: ScanLimits = DEFAULT_LIMITS): Promise<ScanReport> {
  const campaigns = (await listCampaignItems(tenant)).filter((campaign) => campaign.status === 'active' && isCalendarTrigger(campaign.trigger));
  const report: ScanReport = { campaigns: campaigns.length, customers: 0, enrolled: 0, continued: false };
  if (campaigns.length === 0) return report;
  const range = calendarScanRange(new Set(campaigns.map((campaign) => campaign.trigger as CalendarTrigger)), now);
  const versions = new Map<string, Promise<CampaignVersion | undefined>>();
  const versionOf = (campaign: Campaign) => {
    if (!versions.has(campaign.id)) versions.set(campaign.id, findCampaignVersion(tenant, campaign.id, campaign.version));
    return versions.get(campaign.id)!;
  };
  const started = monotonicMs();
  let cursor = job.cursor;
  do {
    const page = await calendarCandidates(tenant, range, cursor, limits.pageSize);
    report.customers += page.customers.length;
    const candidates = page.customers.flatMap((customer) =>
      campaigns.flatMap((campaign) => calendarOccasions(campaign, customer, now).map((occasion) => ({ customer, campaign, occasion }))),
    );
    const existing = candidates.length === 0 ? new Set<string>() : await existingEnrollments(tenant, candidates.map(refOf));
    for (const candidate of candidates) {
      if (existing.has(enrollmentKey(tenant, refOf(candidate)).sk)) continue;
      if (await enrollCandidate(ports, tenant, candidate, now, versionOf)) report.enrolled += 1;
    }
    cursor = page.cursor;
  } while (cursor !== null && monotonicMs() - started < limits.budgetMs);
  if (cursor !== null) {
    await queueScan(ports, tenant, { day: job.day, part: job.part + 1, cursor }, now);
    report.continued = true;
  }
  return report;
}

/** The index is eventually consistent: the customer is read again and enrolled only if the occasion still holds for them. */
async function enrollCandidate(
  ports: DunningPorts,
  tenant: Tenant,
  { customer: listed, campaign, occasion: seen }: Candidate,
  now: Date,
  versionOf: (campaign: Campaign) => Promise<CampaignVersion | undefined>,
): Promise<boolean> {
  const customer = await findCustomer(tenant, listed.id);
  const occasion = customer && calendarOccasions(campaign, customer, now).find((candidate) => candidate.key === seen.key);
  const version = occasion ? await versionOf(campaign) : undefined;
  if (!customer || !occasion || !version) return false;
  return (await enroll(ports, tenant, campaign.id, version, customer, null, now, occasion)) !== undefined;
}
