import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { HttpWebhookSender } from '../../shared/adapters/http-webhook-sender.ts';
import { LocalCompletionQueue } from '../../shared/adapters/local/local-completion-queue.ts';
import { LocalEventFeed } from '../../shared/adapters/local/local-event-feed.ts';
import { LocalKeyVault } from '../../shared/adapters/local/local-key-vault.ts';
import { createLocalOfferApplier } from '../../shared/adapters/local/local-offer-applier.ts';
import { LocalScheduler } from '../../shared/adapters/local/local-scheduler.ts';
import { OutboxMailer, OutboxSmsSender } from '../../shared/adapters/local/outbox-messaging.ts';
import { localCardSetup } from '../../shared/adapters/local/local-card-setup.ts';
import { OutboxWebhookSender } from '../../shared/adapters/local/outbox-webhook-sender.ts';
import { LocalOutbox } from '../../shared/adapters/local/outbox.ts';
import { PortFaults } from '../../shared/adapters/local/port-faults.ts';
import { sandboxProcessor } from '../../shared/adapters/sandbox-processor.ts';
import { installLocalAdapters } from '../../shared/composition/adapters.ts';
import { requireEnv } from '../../shared/config.ts';
import { runtime } from '../../shared/runtime.ts';
import { AdjustableClock } from '../../shared/ports/clock.ts';

/** The local stand-ins for the outside services, which the local runners and the tests look into. */
export interface LocalRuntime {
  clock: AdjustableClock;
  /** Keeps this process's schedules, and the registries sweeps enumerate, apart from other processes sharing the table (test files). */
  scope: string;
  scheduler: LocalScheduler;
  outbox: LocalOutbox;
  events: LocalEventFeed;
  completions: LocalCompletionQueue;
  keyVault: LocalKeyVault;
  /** Failures on demand for the scheduler, email, sms and the completion queue (`POST /__dev/faults`). */
  faults: PortFaults;
}

let installed: LocalRuntime | undefined;

/**
 * Builds the local stand-ins and installs them as the composition root's adapters. It must run before
 * any function module loads (they pick their adapters at import, as at a cold start): `npm start`
 * installs scope `default` first thing, each test file its own (test/support/setup.ts).
 */
export function installLocalRuntime(scope: string): LocalRuntime {
  const clock = new AdjustableClock();
  const outbox = new LocalOutbox();
  const local: LocalRuntime = {
    clock,
    scope,
    scheduler: new LocalScheduler(runtime.db, runtime.tableName, scope),
    outbox,
    events: new LocalEventFeed(async (item) => {
      const { Item } = await runtime.db.send(new GetCommand({ TableName: runtime.tableName, Key: { pk: item.pk, sk: item.sk }, ConsistentRead: true }));
      return Item !== undefined;
    }),
    completions: new LocalCompletionQueue(),
    // The server's and the ops CLI's key under .local/ (bin/local/table.ts), a temporary one in tests.
    keyVault: new LocalKeyVault(requireEnv('LOCAL_VAULT_KEY_FILE')),
    faults: new PortFaults(),
  };
  const { faults } = local;
  installLocalAdapters({
    clock,
    eventsCommitted: (items) => local.events.capture(items),
    eventsInDoubt: (items) => local.events.captureInDoubt(items),
    registryScope: `#${scope}`,
    scheduler: faults.wrap('scheduler', local.scheduler, ['schedule', 'cancel']),
    mailer: faults.wrap('mailer', new OutboxMailer(outbox, clock), ['send']),
    smsSender: faults.wrap('smsSender', new OutboxSmsSender(outbox, clock), ['send']),
    completionQueue: faults.wrap('completionQueue', local.completions, ['enqueue']),
    offerApplier: createLocalOfferApplier(outbox, clock),
    paymentProcessor: sandboxProcessor,
    webhookSender: new OutboxWebhookSender(new HttpWebhookSender(), outbox, clock),
    keyVault: local.keyVault,
    cardSetup: localCardSetup,
  });
  installed = local;
  return local;
}

/** The installed local runtime (the local server's, or this test file's). */
export function localRuntime(): LocalRuntime {
  if (!installed) throw new Error('No local runtime installed: call installLocalRuntime first (bin/local/local-runtime.ts)');
  return installed;
}
