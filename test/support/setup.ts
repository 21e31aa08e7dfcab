import { randomUUID } from 'node:crypto';
import { installLocalRuntime } from '../../bin/local/local-runtime.ts';

// Test files share one DynamoDB Local table; each gets its own local schedule so moving one file's
// clock never fires another file's jobs. Runs before the file's imports pick their adapters.
installLocalRuntime(`test-${randomUUID()}`);
