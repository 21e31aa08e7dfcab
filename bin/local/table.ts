import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type GlobalSecondaryIndexDescription,
} from '@aws-sdk/client-dynamodb';
import { GLOBAL_INDEXES, projectionOf, TABLE_KEYS, TTL_ATTRIBUTE } from '../../shared/store/table-schema.ts';

type IndexDefinition = (typeof GLOBAL_INDEXES)[number];

function indexSpec(index: IndexDefinition) {
  return {
    IndexName: index.name,
    KeySchema: [
      { AttributeName: index.partition, KeyType: 'HASH' as const },
      { AttributeName: index.sort, KeyType: 'RANGE' as const },
    ],
    Projection: projectionOf(index.projection),
  };
}

const stringAttributes = (names: readonly string[]) => names.map((name) => ({ AttributeName: name, AttributeType: 'S' as const }));

/**
 * Creates the single table locally from the same definition the CDK stack deploys. A table kept from
 * an earlier run (`npm start` persists it under .local/) gets the indexes added since, one at a time
 * as DynamoDB requires. Says which of the two it was.
 */
export async function ensureTable(endpoint: string, tableName: string): Promise<'created' | 'kept'> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    let existing: GlobalSecondaryIndexDescription[] | undefined;
    try {
      existing = (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table?.GlobalSecondaryIndexes ?? [];
    } catch (error) {
      if (!(error instanceof ResourceNotFoundException)) throw error;
    }
    if (existing) {
      await addMissingIndexes(client, tableName, existing);
      return 'kept';
    }
    const attributes = [TABLE_KEYS.partition, TABLE_KEYS.sort, ...GLOBAL_INDEXES.flatMap((index) => [index.partition, index.sort])];
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: stringAttributes(attributes),
        KeySchema: [
          { AttributeName: TABLE_KEYS.partition, KeyType: 'HASH' },
          { AttributeName: TABLE_KEYS.sort, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: GLOBAL_INDEXES.map(indexSpec),
      }),
    );
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
      }),
    );
    return 'created';
  } finally {
    client.destroy();
  }
}

async function addMissingIndexes(client: DynamoDBClient, tableName: string, existing: GlobalSecondaryIndexDescription[]): Promise<void> {
  const present = new Set(existing.map((index) => index.IndexName));
  for (const index of GLOBAL_INDEXES.filter((candidate) => !present.has(candidate.name))) {
    await client.send(
      new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: stringAttributes([index.partition, index.sort]),
        GlobalSecondaryIndexUpdates: [{ Create: indexSpec(index) }],
      }),
    );
    // The next index may only be added once this one is built (DynamoDB Local builds at once).
    for (let waited = 0; waited < 30_000; waited += 250) {
      const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
      if (Table?.GlobalSecondaryIndexes?.find((candidate) => candidate.IndexName === index.name)?.IndexStatus === 'ACTIVE') break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

/** Where `npm start` listens unless HOST and PORT say otherwise. */
export const DEFAULT_LOCAL_BASE_URL = 'http://127.0.0.1:3000';

/**
 * Environment for code that reaches the local engine through the ordinary AWS SDK configuration, and
 * seals processor credentials with the key in `vaultKeyFile` (shared/adapters/local/local-key-vault.ts).
 * `baseUrl` is where the local server answers (npm start passes its own); processor webhook URLs use it.
 */
export function localEnvironment(endpoint: string, tableName: string, vaultKeyFile: string, baseUrl = DEFAULT_LOCAL_BASE_URL): Record<string, string> {
  return {
    RUNTIME_MODE: 'local',
    TABLE_NAME: tableName,
    LOCAL_VAULT_KEY_FILE: vaultKeyFile,
    API_BASE_URL: baseUrl,
    EDGE_URL: baseUrl,
    AWS_ENDPOINT_URL_DYNAMODB: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
}
