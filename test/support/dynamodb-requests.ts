import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** True for requests of the local scheduler (table items standing in for EventBridge Scheduler). */
function isLocalSchedulerRequest(input: any): boolean {
  const pk = input?.Item?.pk ?? input?.Key?.pk;
  return typeof pk === 'string' && pk.startsWith('LOCALJOB');
}

let counters = 0;

/**
 * Counts the DynamoDB requests a piece of work sends through the shared document client (the tests'
 * and the benches' cost measure). The local scheduler's writes are counted apart: in AWS those are
 * EventBridge Scheduler calls, not DynamoDB. `stop()` takes the counter off the client again.
 */
export function requestCounter(client: Pick<DynamoDBDocumentClient, 'middlewareStack'>) {
  let count = 0;
  let scheduler = 0;
  let transactItems = 0;
  const name = `requestCounter${++counters}`;
  client.middlewareStack.add(
    (next: (args: any) => Promise<any>) => async (args: any) => {
      if (isLocalSchedulerRequest(args.input)) scheduler += 1;
      else count += 1;
      transactItems += args.input?.TransactItems?.length ?? 0;
      return next(args);
    },
    { step: 'initialize', name },
  );
  return {
    reset: () => {
      count = 0;
      scheduler = 0;
      transactItems = 0;
    },
    stop: () => {
      client.middlewareStack.remove(name);
    },
    get count() {
      return count;
    },
    get schedulerCalls() {
      return scheduler;
    },
    /** Items written or checked by transactions (DynamoDB bills and locks each one). */
    get transactItems() {
      return transactItems;
    },
  };
}
