import { ReturnValuesOnConditionCheckFailure } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { TransactItem } from './transactions.ts';
import { runtime } from '../runtime.ts';
import type { MessageTemplate } from '../model/message-template.ts';
import type { Tenant } from '../model/tenant.ts';
import { missingResource } from './cross-environment.ts';
import { isConditionFailure, itemAtConditionFailure, putVersioned, queryAll, type Item } from './dynamo.ts';
import { entityOf, storedItem } from './items.ts';
import { tenantKey, tenantPk } from './keys.ts';

const { db, tableName } = runtime;

const TEMPLATE_PREFIX = 'TEMPLATE#';
const templateSk = (id: string): string => `${TEMPLATE_PREFIX}${id}`;
const templateKey = (tenant: Tenant, id: string) => (tenantKey(tenant, templateSk(id)));

const fromItem = (item: Item): MessageTemplate => entityOf<MessageTemplate>(item);

/** A merchant's own template (built-in ones are not stored). */
export async function findTemplate(tenant: Tenant, id: string): Promise<MessageTemplate | undefined> {
  const { Item } = await db.send(new GetCommand({ TableName: tableName, Key: templateKey(tenant, id), ConsistentRead: true }));
  return Item ? fromItem(Item) : undefined;
}

/** The template an API call names: 404 when missing, 401 when it is the other environment's (§5 rule 1). */
export async function getTemplate(tenant: Tenant, id: string): Promise<MessageTemplate> {
  const template = await findTemplate(tenant, id);
  if (!template) throw await missingResource(tenant, templateSk(id), 'template', id);
  return template;
}

/** Every template of the tenant, oldest first (ids sort by creation). */
export async function listTemplates(tenant: Tenant): Promise<MessageTemplate[]> {
  const items = await queryAll(db, {
    TableName: tableName,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
    ExpressionAttributeValues: { ':pk': tenantPk(tenant), ':prefix': TEMPLATE_PREFIX },
  });
  return items.map(fromItem);
}

/** Creates (previousVersion null) or replaces a template; false when it changed (or appeared) meanwhile. */
export async function saveTemplate(tenant: Tenant, template: MessageTemplate, previousVersion: number | null): Promise<boolean> {
  return putVersioned(db, tableName, storedItem(templateKey(tenant, template.id), 'message_template', template), previousVersion);
}

/** Deletes the template as read; false when it changed meanwhile, true when it is gone. */
export async function deleteTemplate(tenant: Tenant, template: MessageTemplate): Promise<boolean> {
  try {
    await db.send(
      new DeleteCommand({
        TableName: tableName,
        Key: templateKey(tenant, template.id),
        ConditionExpression: 'version = :version',
        ExpressionAttributeValues: { ':version': template.version },
        ReturnValuesOnConditionCheckFailure: ReturnValuesOnConditionCheckFailure.ALL_OLD,
      }),
    );
    return true;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // The caller read it just before: gone now is deleted, by this delete resent after its answer was lost (or a concurrent one).
    return itemAtConditionFailure(error) === undefined;
  }
}

/**
 * Part of a campaign write naming the template: it must exist, and its version moves on, so a
 * deletion (conditioned on the version it read before checking for campaigns using it) that raced
 * the campaign write fails and checks again.
 */
export function templateReferenceWrite(tenant: Tenant, id: string): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: templateKey(tenant, id),
      UpdateExpression: 'ADD version :one',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':one': 1 },
    },
  };
}
