import { keyStatus } from '../domain/access/api-key-lifecycle.ts';
import type { ApiKeyResource } from './schemas/api-key.ts';
import type { ApiKeyRecord } from '../model/api-key.ts';

/** The REST shape of an API key; the secret itself is never part of it. */
export function apiKeyResource(record: ApiKeyRecord, now: Date): ApiKeyResource {
  const prefix = record.kind === 'publishable' ? 'svc_pub_' : `svc_${record.environment}_`;
  return {
    id: record.id,
    object: 'api_key',
    name: record.name,
    type: record.kind,
    environment: record.environment,
    scopes: record.scopes,
    redacted_key: `${prefix}...${record.hint}`,
    status: keyStatus(record, now),
    created_at: record.created_at,
    expires_at: record.valid_until,
    rotated_at: record.rotated_at,
    revoked_at: record.revoked_at,
  };
}
