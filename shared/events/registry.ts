import type { EventConsumer } from './consumers.ts';
import { offerApplication } from './offer-application.ts';
import { dunningConsumer } from './dunning-consumer.ts';
import { webhookFanOut } from './outbound-webhook-consumer.ts';
import { analyticsConsumer, campaignAnalyticsConsumer } from './analytics-consumer.ts';
import { campaignSweeps } from './campaign-sweep-consumer.ts';
import { metricsConsumer } from './metrics-consumer.ts';
import { searchIndexConsumer } from './search-index-consumer.ts';

/**
 * Every consumer of the event log; the stream handler and the local event runner read this list.
 * Metrics run last (runsLast): a record is counted only once every other consumer has handled it.
 */
export const EVENT_CONSUMERS: readonly EventConsumer[] = [
  dunningConsumer,
  offerApplication,
  webhookFanOut,
  analyticsConsumer,
  campaignAnalyticsConsumer,
  campaignSweeps,
  searchIndexConsumer,
  metricsConsumer,
];
