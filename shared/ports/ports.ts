import type { CardSetup } from './card-setup.ts';
import type { CompletionQueue } from './completion-queue.ts';
import type { KeyVault } from './key-vault.ts';
import type { Mailer, SmsSender } from './messaging.ts';
import type { OfferApplier } from './offer-applier.ts';
import type { PaymentProcessor } from './payment-processor.ts';
import type { Scheduler } from './scheduler.ts';
import type { WebhookSender } from './webhook-sender.ts';

/**
 * Every outside service a use case may call besides the table. A use case takes the ones it calls as
 * its first argument (`Pick<Ports, 'scheduler'>`); the function that runs it gets them from
 * shared/composition, which knows AWS from local.
 */
export interface Ports {
  scheduler: Scheduler;
  mailer: Mailer;
  smsSender: SmsSender;
  completionQueue: CompletionQueue;
  offerApplier: OfferApplier;
  paymentProcessor: PaymentProcessor;
  webhookSender: WebhookSender;
  keyVault: KeyVault;
  cardSetup: CardSetup;
}
