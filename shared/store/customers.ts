import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../composition.ts';
import type { Customer } from '../domain/customers.ts';
import type { Tenant } from '../domain/tenant.ts';
import { missingResource } from './cross-environment.ts';
import { tenantPk } from './keys.ts';
import type { TransactItem } from './transactions.ts';

const { db, tableName } = runtime;

export const customerSk = (customerId: string): string => `CUSTOMER#${customerId}`;
/** One customer per merchant, environment, processor and processor customer id (§6). */
const customerRefSk = (psp: string, pspCustomerId: string): string => `CUSTREF#${psp}#${pspCustomerId}`;

function toItem(tenant: Tenant, customer: Customer) {
  return { pk: tenantPk(tenant), sk: customerSk(customer.id), entity: 'customer', ...customer };
}

function fromItem(item: Record<string, unknown>): Customer {
  const { pk: _pk, sk: _sk, entity: _entity, gsi1pk: _g1, gsi1sk: _g1s, gsi2pk: _g2, gsi2sk: _g2s, gsi3pk: _g3, gsi3sk: _g3s, ...customer } = item;
  return customer as unknown as Customer;
}

export async function findCustomerIdForPsp(tenant: Tenant, psp: string, pspCustomerId: string): Promise<string | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: { pk: tenantPk(tenant), sk: customerRefSk(psp, pspCustomerId) }, ConsistentRead: true }),
  );
  return Item?.customer_id as string | undefined;
}

export async function findCustomer(tenant: Tenant, customerId: string): Promise<Customer | undefined> {
  const { Item } = await db.send(
    new GetCommand({ TableName: tableName, Key: { pk: tenantPk(tenant), sk: customerSk(customerId) }, ConsistentRead: true }),
  );
  return Item ? fromItem(Item) : undefined;
}

export async function getCustomer(tenant: Tenant, customerId: string): Promise<Customer> {
  const customer = await findCustomer(tenant, customerId);
  if (!customer) throw await missingResource(tenant, customerSk(customerId), 'customer', customerId);
  return customer;
}

/**
 * Writes a customer as part of a transaction: a new one together with its processor reference (so two
 * first events cannot create two customers), an existing one only if nobody changed it since it was read.
 */
export function saveCustomerWrites(tenant: Tenant, customer: Customer, readVersion: number | null): TransactItem[] {
  if (readVersion === null) {
    return [
      { Put: { TableName: tableName, Item: toItem(tenant, customer), ConditionExpression: 'attribute_not_exists(pk)' } },
      {
        Put: {
          TableName: tableName,
          Item: {
            pk: tenantPk(tenant),
            sk: customerRefSk(customer.psp, customer.psp_customer_id),
            entity: 'customer_ref',
            customer_id: customer.id,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ];
  }
  return [
    {
      Put: {
        TableName: tableName,
        Item: toItem(tenant, customer),
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': readVersion },
      },
    },
  ];
}
