import type { EventConsumer } from './consumers.ts';
import { offerApplication } from './offer-application.ts';
import { dunningConsumer } from './dunning-consumer.ts';
import { webhookFanOut } from './webhook-consumer.ts';
import { analyticsConsumer, campaignAnalyticsConsumer } from './analytics-consumer.ts';

/** Every consumer of the event log; the stream handler and the local event runner read this list. */
export const EVENT_CONSUMERS: readonly EventConsumer[] = [dunningConsumer, offerApplication, webhookFanOut, analyticsConsumer, campaignAnalyticsConsumer];
