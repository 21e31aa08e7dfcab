import { runtime } from '../runtime.ts';
import { scheduler } from '../composition/scheduler.ts';
import { queueCampaignSweep, sweepAfter } from '../domain/campaigns/campaign-sweeps.ts';
import { eventConsumer } from './consumers.ts';

/** Archiving and re-activation have their enrollments swept by a job; queued once per status change (the job id is the event's). */
export const campaignSweeps = eventConsumer({
  name: 'campaign-sweeps',
  types: ['campaign.status_changed'],
  async handle(tenant, event) {
    const change = event.data;
    const action = sweepAfter(change);
    if (action) await queueCampaignSweep({ scheduler }, tenant, { campaign_id: change.campaign_id, action, event_id: event.id, part: 0, cursor: null }, runtime.clock.now());
  },
});
