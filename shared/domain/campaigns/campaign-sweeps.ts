import { monotonicMs } from '../../ports/clock.ts';
import { findCampaign, findCampaignVersion } from '../../store/campaigns.ts';
import { findEnrollment, runningEnrollmentsPage, saveEnrollment } from '../../store/enrollments.ts';
import type { CampaignStatus, CampaignVersion } from '../../model/campaign.ts';
import type { CampaignStatusChanged } from '../../model/events.ts';
import { finish, scheduleStep, type DunningPorts } from '../dunning/dunning.ts';
import type { Enrollment } from '../../model/enrollment.ts';
import { shiftOutOfQuietHours } from '../dunning/quiet-hours.ts';
import type { Tenant } from '../../model/tenant.ts';

/**
 * What a campaign's status change does to the customers enrolled in it (§3.1): archiving removes
 * every running enrollment, re-activation releases the steps a pause held. A campaign can have
 * thousands of them, more than a request could walk inside API Gateway's 29 seconds, and a request
 * cut off halfway would leave the rest for good (archiving cannot be repeated). So the status change
 * records an internal campaign.status_changed event in its own transaction; the event log's consumer
 * queues a campaign-sweep job, and the job walks the enrollments a page at a time, continuing in a
 * follow-up job when its time is up. Every step re-reads what it changes, so a repeated or
 * overlapping sweep changes nothing twice. Meanwhile a removed campaign's due step removes its own
 * enrollment (dunning-steps.ts), so no message goes out after an archive either way.
 */

export type SweepAction = 'remove' | 'release';

export interface CampaignSweepJob {
  campaign_id: string;
  action: SweepAction;
  /** The status change's event: names the jobs, so a redelivered event queues the same ones. */
  event_id: string;
  /** 0 for the first job, then +1 for each continuation. */
  part: number;
  /** Where a continuation resumes the enrollments; null to start at the beginning. */
  cursor: Record<string, unknown> | null;
}

/** The sweep a status change calls for, if any. */
export function sweepAfter(change: CampaignStatusChanged): SweepAction | undefined {
  if (change.to === 'archived') return 'remove';
  if (change.from === 'paused' && change.to === 'active') return 'release';
  return undefined;
}

/** The status a sweep is for: archiving is final, an activation can be undone by a pause. */
const SWEPT_IN: Readonly<Record<SweepAction, CampaignStatus>> = { remove: 'archived', release: 'active' };

export const campaignSweepJobId = (eventId: string, part: number): string => `sweep-${eventId}-${part}`;

export async function queueCampaignSweep(ports: DunningPorts, tenant: Tenant, job: CampaignSweepJob, now: Date): Promise<void> {
  await ports.scheduler.schedule({ id: campaignSweepJobId(job.event_id, job.part), kind: 'campaign-sweep', runAt: now, tenant, payload: { ...job } });
}

export interface SweepLimits {
  /** Enrollments read per index query. */
  pageSize: number;
  /** A new page starts only this long after the job began; the rest continues in a follow-up job. */
  budgetMs: number;
}

/** A job has 60 s; starting pages only in the first 30 leaves room for the last page (about 30 ms an enrollment). */
const DEFAULT_LIMITS: SweepLimits = { pageSize: 100, budgetMs: 30_000 };

export interface SweepReport {
  /** Enrollments removed or released by this job. */
  changed: number;
  /** The campaign is not in the status the sweep is for (paused again before its held steps were released). */
  superseded: boolean;
  /** More enrollments are left for a follow-up job. */
  continued: boolean;
}

/**
 * One job of a sweep. Enrollments are changed one after another: removing one moves the campaign's
 * counters in the same transaction, and concurrent transactions on that one item would conflict.
 */
export async function sweepCampaign(ports: DunningPorts, tenant: Tenant, job: CampaignSweepJob, now: Date, limits: SweepLimits = DEFAULT_LIMITS): Promise<SweepReport> {
  const report: SweepReport = { changed: 0, superseded: false, continued: false };
  const campaign = await findCampaign(tenant, job.campaign_id);
  // Paused again before the release, its held steps wait for the next activation (and its sweep).
  if (campaign?.status !== SWEPT_IN[job.action]) return { ...report, superseded: true };
  const versions = new Map<number, Promise<CampaignVersion | undefined>>();
  const versionOf = (version: number) => {
    if (!versions.has(version)) versions.set(version, findCampaignVersion(tenant, job.campaign_id, version));
    return versions.get(version)!;
  };
  const started = monotonicMs();
  let cursor = job.cursor;
  do {
    const page = await runningEnrollmentsPage(tenant, job.campaign_id, cursor, limits.pageSize);
    for (const listed of page.enrollments) {
      const enrollment = await findEnrollment(tenant, listed);
      if (enrollment?.status !== 'active') continue;
      const changed = job.action === 'remove' ? await finish(ports, tenant, enrollment, 'removed', 'archived', now) : await release(ports, tenant, enrollment, now, versionOf);
      if (changed) report.changed += 1;
    }
    cursor = page.cursor;
  } while (cursor !== null && monotonicMs() - started < limits.budgetMs);
  if (cursor !== null) {
    await queueCampaignSweep(ports, tenant, { ...job, part: job.part + 1, cursor }, now);
    report.continued = true;
  }
  return report;
}

/** A held step goes out now (quiet hours permitting); an enrollment that was not held is left as it is. */
async function release(ports: DunningPorts, tenant: Tenant, enrollment: Enrollment, now: Date, versionOf: (version: number) => Promise<CampaignVersion | undefined>): Promise<boolean> {
  if (!enrollment.held) return false;
  const version = await versionOf(enrollment.campaign_version);
  const at = version ? shiftOutOfQuietHours(now, version.quiet_hours) : now;
  const next: Enrollment = { ...enrollment, held: false, next_step_at: at.toISOString(), updated_at: now.toISOString(), version: enrollment.version + 1 };
  if (!(await saveEnrollment(tenant, next, enrollment.version))) return false;
  await scheduleStep(ports, tenant, next, at);
  return true;
}
