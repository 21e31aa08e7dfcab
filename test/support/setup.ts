import { randomUUID } from 'node:crypto';

// Test files share one DynamoDB Local table; each gets its own local schedule so moving one file's
// clock never fires another file's jobs. Runs before the file's imports build the runtime.
process.env.LOCAL_SCHEDULER_SCOPE = `test-${randomUUID()}`;
