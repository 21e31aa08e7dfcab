import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Tenant } from '../../shared/model/tenant.ts';
import { erasureCheck, erasureVerdict, notErasedChecks } from '../../shared/store/erased-references.ts';

const tenant: Tenant = { merchantId: 'mer_01jd4x2k9m8v7c6b5n4q3r2s1t', environment: 'test' };
const other: Tenant = { merchantId: 'mer_01jd4x2k9m8v7c6b5n4q3r2s1u', environment: 'test' };

const instant = fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2027-01-01T00:00:00Z') }).map((ms) => new Date(ms).toISOString());
const tombstone = fc.record({ erased_at: instant, erasure_state: fc.constantFrom(undefined, 'in_progress', 'completed') });

describe('erasure tombstones', () => {
  it('keys hash the id, salted with the tenant: the id is nowhere in them, and another tenant gets other keys', () => {
    // Act
    const check = erasureCheck(tenant, 'acme', 'pc0f1c0bec018d', ['inv_pc0f1c0bec018d_2026_11', 'inv_pc0f1c0bec018d_2026_11'], '2026-11-26T10:00:00Z');
    const elsewhere = erasureCheck(other, 'acme', 'pc0f1c0bec018d', ['inv_pc0f1c0bec018d_2026_11'], '2026-11-26T10:00:00Z');
    // Assess
    expect(check.keys).toHaveLength(2);
    expect(check.keys[0]!.sk).toMatch(/^ERASED#acme#customer#[0-9a-f]{64}$/);
    expect(check.keys[1]!.sk).toMatch(/^ERASED#acme#charge#[0-9a-f]{64}$/);
    expect(JSON.stringify(check.keys)).not.toContain('pc0f1c0bec018d');
    expect(elsewhere.keys.map((key) => key.sk.slice(-64))).not.toContain(check.keys[0]!.sk.slice(-64));
    expect(check.occurredAt).toBe('2026-11-26T10:00:00.000Z');
  });

  it('erases an event that happened before any erasure naming it; else waits for one under way; else lets it through', () => {
    fc.assert(
      fc.property(fc.array(tombstone, { maxLength: 4 }), instant, (found, occurredAt) => {
        const items = found.map((item, i) => ({ sk: `ERASED#acme#charge#${i}`, ...item }));
        const verdict = erasureVerdict([{ sk: 'CUSTREF#acme#x', customer_id: 'cus_x' }, ...items], { keys: [], occurredAt });
        const before = found.some((item) => occurredAt < item.erased_at);
        const running = found.some((item) => item.erasure_state === 'in_progress');
        expect(verdict.kind).toBe(before ? 'erased' : running ? 'erasing' : 'none');
      }),
    );
  });

  it('treats an event at the very moment the erasure began as after it', () => {
    const at = '2026-11-26T10:00:00.000Z';
    expect(erasureVerdict([{ sk: 'ERASED#acme#customer#h', erased_at: at, erasure_state: 'completed' }], { keys: [], occurredAt: at })).toEqual({ kind: 'none' });
  });

  it('checks each key in the transaction: absent, or erased no later than the event and no erasure under way', () => {
    const check = erasureCheck(tenant, 'acme', 'pc1', ['ch_1'], '2026-11-26T10:00:00Z');
    expect(notErasedChecks(check)).toEqual(
      check.keys.map((Key) => ({
        ConditionCheck: {
          TableName: expect.any(String),
          Key,
          ConditionExpression: 'attribute_not_exists(pk) OR (erased_at <= :at AND (attribute_not_exists(erasure_state) OR erasure_state = :completed))',
          ExpressionAttributeValues: { ':at': '2026-11-26T10:00:00.000Z', ':completed': 'completed' },
        },
      })),
    );
  });
});
