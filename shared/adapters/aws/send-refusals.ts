import type { CampaignChannel } from '../../model/campaign.ts';
import { PermanentSendFailure, type SendRefusal } from '../../ports/messaging.ts';

/** What a classifier reads of an SDK error: its name and, for End User Messaging, its `Reason` field. */
export interface ProviderError {
  name: string;
  Reason?: unknown;
}

/** The refusal an error means, or undefined when a retry may succeed (throttling, 5xx, network, anything unknown). */
export type RefusalClassifier = (error: ProviderError) => SendRefusal | undefined;

/**
 * Runs a send and turns the errors `classify` calls permanent into PermanentSendFailure; every
 * other error propagates as it came, so the job fails and the scheduler retries it. Unknown errors
 * count as retryable on purpose: a wrongly retried step goes out late, a wrongly skipped one never.
 */
export async function sendOrRefuse<T>(channel: CampaignChannel, classify: RefusalClassifier, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    const provider: Error & ProviderError = error;
    const refusal = classify(provider);
    if (refusal === undefined) throw error;
    const code = typeof provider.Reason === 'string' ? `${provider.name}/${provider.Reason}` : provider.name;
    throw new PermanentSendFailure(channel, refusal, code, { cause: error });
  }
}
