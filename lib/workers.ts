import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import type { Route } from '../shared/routes.ts';
import type { Data } from './data.ts';
import { underOwner, type FunctionPlacement } from './function-stacks.ts';
import type { Queues, WorkQueue } from './queues.ts';
import { constructIdFor, RouteFunction } from './route-function.ts';

/** The route services (`Route.services` in shared/routes.ts) that hand work to a queue's worker. */
export type QueueService = Exclude<NonNullable<Route['services']>[number], 'scheduler' | 'messaging'>;

export interface WorkerDefinition {
  /** The route service whose functions send to this worker's queue. */
  service: QueueService;
  /** Handler module under functions/ (an SQS handler returning batchItemFailures, see shared/queue-handler.ts). */
  handler: string;
  /** Construct id of its work queue (lib/queues.ts `newWorkQueue`); its dead-letter queue is `<queue>DeadLetter`. */
  queue: string;
  /** The environment variable giving the producers the queue's URL. */
  queueUrlEnv: string;
  description: string;
}

/**
 * The SQS workers: each one's queue (with its dead-letter queue and alarm), its consumer function,
 * and the route service that fills it. To add a worker, add its handler here (in a folder
 * FUNCTION_AREAS maps) and its service to `Route.services`; the routes declaring that service get the
 * queue's URL and may send to it, and no other function may.
 */
export const WORKERS: readonly WorkerDefinition[] = [
  {
    service: 'cancel-completions',
    handler: 'workers/cancel-completions',
    queue: 'CancelCompletions',
    queueUrlEnv: 'CANCEL_COMPLETION_QUEUE_URL',
    description: 'Cancel-flow completions the complete request could not store (SQS worker)',
  },
];

/** Within the queues' visibility timeout (6 minutes, six times this). */
const WORKER_TIMEOUT = Duration.seconds(60);
const BATCH_SIZE = 10;

/** What `grantProducer` needs of a function: RouteFunction has it. */
export interface ProducerGrantee {
  readonly function: RouteFunction['function'];
}

export interface WorkersProps {
  data: Data;
  queues: Queues;
  /** The worker table; a prop so tests can pass their own. */
  workers: readonly WorkerDefinition[];
  /** Where the worker functions are created; the queues stay in Queues. Default: under this construct. */
  placement?: FunctionPlacement;
}

export interface Worker {
  definition: WorkerDefinition;
  work: WorkQueue;
  consumer: RouteFunction;
}

/**
 * One work queue and one consuming function per worker. The mapping reports batch item failures, so
 * only failed messages are delivered again, and after MAX_RECEIVE_COUNT deliveries go to the
 * queue's dead-letter queue.
 */
export class Workers extends Construct {
  readonly workers: ReadonlyMap<QueueService, Worker>;

  constructor(scope: Construct, id: string, props: WorkersProps) {
    super(scope, id);
    const workers = new Map<QueueService, Worker>();
    for (const definition of props.workers) {
      if (workers.has(definition.service)) throw new Error(`Two workers for the service ${definition.service}`);
      const work = props.queues.newWorkQueue(definition.queue);
      const consumer = new RouteFunction((props.placement ?? underOwner)(this, definition.handler), constructIdFor(definition.handler), {
        handler: definition.handler,
        description: definition.description,
        data: props.data,
        // Stores what the message describes and its events: table access only.
        access: 'write',
        timeout: WORKER_TIMEOUT,
      });
      // Also grants receiving and deleting this queue's messages, by ARN.
      consumer.function.addEventSource(new SqsEventSource(work.queue, { batchSize: BATCH_SIZE, reportBatchItemFailures: true }));
      workers.set(definition.service, { definition, work, consumer });
    }
    this.workers = workers;
  }

  /** Lets a function send to the service's queue, and tells it the queue's URL. */
  grantProducer(service: QueueService, grantee: ProducerGrantee): void {
    const worker = this.workers.get(service);
    if (!worker) throw new Error(`No worker for the service ${service}; add one to WORKERS in lib/workers.ts`);
    grantee.function.addEnvironment(worker.definition.queueUrlEnv, worker.work.queue.queueUrl);
    worker.work.queue.grantSendMessages(grantee.function);
  }
}
