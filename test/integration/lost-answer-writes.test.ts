import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runtime } from '../../shared/runtime.ts';
import type { Tenant } from '../../shared/model/tenant.ts';
import { disableFailingEndpoint } from '../../shared/store/webhook-endpoints.ts';
import { advanceClock, call, drainEvents, newMerchant, runDueJobs } from '../support/api.ts';
import { merchantWithCampaign } from '../support/dunning-merchants.ts';
import { resendAfterLostAnswer } from '../support/lost-answers.ts';
import { tenantItems } from '../support/tenant-items.ts';
import { genericFailure, postGeneric } from '../support/webhooks.ts';

/**
 * Single-item conditional writes (no transaction, so no request token) whose answer is lost: the
 * SDK resends the same request, which meets the write it already applied. The caller must still get
 * the answer the first try earned.
 */

/** A write of this command type to the item whose sort key starts with `prefix`. */
const writing = (type: typeof DeleteCommand | typeof UpdateCommand, prefix: string) => (command: unknown) =>
  command instanceof type && String((command.input as { Key?: { sk?: string } }).Key?.sk).startsWith(prefix);

async function merchant() {
  const created = await newMerchant();
  const tenant: Tenant = { merchantId: created.merchantId, environment: 'test' };
  return { ...created, tenant };
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** What each deletable resource needs: its path, the key that may create and delete it, a body, and its items' sort-key prefix. */
const DELETABLE = [
  { what: 'template', path: '/v1/templates', key: 'test_write', body: { channel: 'sms', name: 'Short', text: 'Update your card: {{ update_url }}' }, prefix: 'TEMPLATE#' },
  { what: 'webhook endpoint', path: '/v1/webhooks', key: 'test_admin', body: { url: 'https://example.com/hooks', events: ['*'] }, prefix: 'WEBHOOK#' },
] as const;

describe('a DELETE whose answer was lost', () => {
  it.each(DELETABLE)('answers the merchant as deleted, not 404, and the $what is gone', async ({ path, key: role, body, prefix }) => {
    // Prepare: one resource of the merchant's own; its item's delete to be applied and resent.
    const { keys, tenant } = await merchant();
    const key = keys[role];
    const created = await call('POST', path, { key, body });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const deleting = writing(DeleteCommand, prefix);
    const spy = resendAfterLostAnswer(deleting);

    // Act
    const deleted = await call('DELETE', `${path}/${id}`, { key });
    const resent = spy.mock.calls.some(([command]) => deleting(command));
    spy.mockRestore();

    // Assess: the merchant hears of the delete it made, the item is gone, and a second DELETE is a 404.
    expect(resent).toBe(true);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body.data).toEqual({ id, deleted: true });
    expect(await tenantItems(tenant, prefix)).toEqual([]);
    expect((await call('DELETE', `${path}/${id}`, { key })).status).toBe(404);
  });
});

describe('disabling a failing webhook endpoint when the answer was lost', () => {
  it('reports the endpoint disabled by this call, not "already disabled"', async () => {
    // Prepare: an enabled endpoint that never had a success; the disabling update to be applied and resent.
    const { keys, tenant } = await merchant();
    const created = await call('POST', '/v1/webhooks', { key: keys.test_admin, body: { url: 'https://example.com/failing', events: ['*'] } });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const now = runtime.clock.now();
    const since = new Date(now.getTime() - 3 * 86_400_000).toISOString();
    const spy = resendAfterLostAnswer(writing(UpdateCommand, 'WEBHOOK#'));

    // Act
    const disabled = await disableFailingEndpoint(tenant, id, since, now);
    const resent = spy.mock.calls.some(([command]) => writing(UpdateCommand, 'WEBHOOK#')(command));
    spy.mockRestore();
    const again = await disableFailingEndpoint(tenant, id, since, new Date(now.getTime() + 1000));

    // Assess: this call disabled it (so its warning is logged and its job reports it); a later call finds it disabled already.
    expect(resent).toBe(true);
    expect(disabled).toBe(true);
    expect(again).toBe(false);
    const [stored] = await tenantItems(tenant, 'WEBHOOK#');
    expect(stored).toMatchObject({ id, enabled: false, disabled_reason: 'failing', disabled_at: now.toISOString() });
  });
});

describe("a dunning step's message slot claim whose answer was lost", () => {
  it('gives the slot back when the message is refused, as it does when the answer arrives', async () => {
    // Prepare: a customer whose email the provider refuses for good (docs/testing.md, "Refused recipients"); the step's claim to be applied and resent.
    const { tenant, path } = await merchantWithCampaign();
    const failure = genericFailure({ code: 'expired_card', email: `ada.${Date.now()}@reject.invalid` });
    expect((await postGeneric(path, failure)).status).toBe(200);
    await drainEvents();
    const spy = resendAfterLostAnswer(writing(UpdateCommand, 'MESSAGED#'));

    // Act: the step comes due and runs.
    advanceClock(3600);
    const steps = (await runDueJobs()).filter((run) => run.kind === 'campaign-step');
    const resent = spy.mock.calls.some(([command]) => writing(UpdateCommand, 'MESSAGED#')(command));
    spy.mockRestore();

    // Assess: the refused step holds no slot, so the campaign's step for another failure of this customer is not skipped as a duplicate.
    expect(resent).toBe(true);
    expect(steps.map((run) => run.outcome)).toEqual(['succeeded']);
    expect(await tenantItems(tenant, 'MESSAGED#')).toEqual([]);
  });
});
