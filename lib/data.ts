import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, type IGrantable } from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { RATE_LIMIT_PK_PREFIX } from '../shared/store/keys.ts';
import { GLOBAL_INDEXES, TABLE_KEYS, TTL_ATTRIBUTE, type IndexProjection } from '../shared/store/table-schema.ts';

/** What a function may do with the table; 'none' is for functions that never touch it (the edge API's fallback). */
export type TableAccess = 'read' | 'write' | 'none';

/** Item and query reads. No Scan: every access pattern is a key lookup or a Query (docs/data-model.md). */
const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
/** Transactions need no actions of their own: IAM checks each item's Put/Update/Delete/ConditionCheck. */
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

function cdkProjection(projection: IndexProjection) {
  return projection === 'ALL'
    ? { projectionType: ProjectionType.ALL }
    : { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...projection.include] };
}

/**
 * The single table, built from the same schema module the store code and DynamoDB Local use, and the
 * one place that turns a route's declared access into IAM statements.
 */
export class Data extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_KEYS.partition, type: AttributeType.STRING },
      sortKey: { name: TABLE_KEYS.sort, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TTL_ATTRIBUTE,
      encryption: TableEncryption.AWS_MANAGED,
      // The event log's delivery (lib/event-stream.ts): consumers need the new item only.
      stream: StreamViewType.NEW_IMAGE,
      // Merchants' data outlives any one deployment: deleting the stack (or the table by hand) keeps it.
      removalPolicy: RemovalPolicy.RETAIN,
      deletionProtection: true,
    });
    for (const index of GLOBAL_INDEXES) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partition, type: AttributeType.STRING },
        sortKey: { name: index.sort, type: AttributeType.STRING },
        ...cdkProjection(index.projection),
      });
    }
  }

  /**
   * Grants exactly what a route declares. Indexes are named one by one (no `index/*`), so a new index
   * reaches functions only through table-schema.ts. Read routes may still write one thing: the REST
   * middleware's rate-limit window, whose partition keys all start with RATE#; the LeadingKeys condition
   * is always present on UpdateItem, so ForAllValues cannot pass vacuously.
   */
  grant(grantee: IGrantable, access: TableAccess): void {
    if (access === 'none') return;
    const { tableArn } = this.table;
    const principal = grantee.grantPrincipal;
    principal.addToPrincipalPolicy(new PolicyStatement({ actions: READ_ACTIONS, resources: [tableArn] }));
    principal.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['dynamodb:Query'], resources: GLOBAL_INDEXES.map((index) => `${tableArn}/index/${index.name}`) }),
    );
    if (access === 'write') {
      principal.addToPrincipalPolicy(new PolicyStatement({ actions: WRITE_ACTIONS, resources: [tableArn] }));
      return;
    }
    principal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${RATE_LIMIT_PK_PREFIX}*`] } },
      }),
    );
  }
}
