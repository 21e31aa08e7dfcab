import { runtime } from '../../shared/runtime.ts';
import { activateCancelFlow, createCancelFlow } from '../../shared/domain/cancel-flows/cancel-flow-lifecycle.ts';
import type { CancelFlowDefinition } from '../../shared/model/cancel-flow.ts';
import { onboardMerchant } from '../../shared/domain/access/merchant-onboarding.ts';
import { findActiveCancelFlowId } from '../../shared/store/cancel-flows.ts';
import { findMerchant } from '../../shared/store/merchants.ts';
import type { Credentials } from './credentials.ts';

/**
 * The demo merchant (enterprise plan) and its keys. Reused while the data it names still exists, so
 * credentials stay stable across restarts on disk; created afresh for a new or in-memory store.
 */
export async function seedDemoMerchant(previous: Credentials | undefined, baseUrl: string): Promise<Credentials> {
  if (previous && (await findMerchant(previous.merchant_id))) {
    return { ...previous, base_url: baseUrl, edge_url: baseUrl };
  }
  const { merchant, keys } = await onboardMerchant({ name: 'Demo merchant', plan: 'enterprise' }, runtime.clock.now());
  return { base_url: baseUrl, edge_url: baseUrl, merchant_id: merchant.id, keys };
}

/** The demo merchant's test-mode cancel flow, run by the widget on /demo/cancel. */
export const DEMO_CANCEL_FLOW: CancelFlowDefinition = {
  name: 'Demo cancel flow',
  steps: [
    {
      step_type: 'survey',
      config: {
        question: 'What is the main reason you are canceling?',
        reasons: [
          {
            id: 'too_expensive',
            label: 'It costs too much',
            sub_reasons: [
              { id: 'budget_cut', label: 'My budget was cut' },
              { id: 'found_cheaper', label: 'I found something cheaper' },
            ],
          },
          { id: 'missing_features', label: 'It is missing features I need', free_text: true },
          { id: 'not_using', label: 'I am not using it enough' },
          { id: 'other', label: 'Something else', free_text: true },
        ],
      },
    },
    {
      step_type: 'offer',
      config: {
        offer_type: 'discount',
        headline: 'Stay for half price',
        body: 'Keep everything you have today at 50% off for the next 3 months.',
        percent_off: 50,
        duration_months: 3,
      },
    },
    {
      step_type: 'confirm',
      config: { headline: 'Cancel your subscription?', body: 'You keep access until the end of the current billing period.' },
    },
  ],
  allowed_origins: [],
};

/**
 * Makes sure the demo merchant has an active test-mode cancel flow (the demo page runs in test
 * mode). A flow the developer activated in its place is left alone, across restarts too.
 */
export async function seedDemoCancelFlow(merchantId: string): Promise<void> {
  const tenant = { merchantId, environment: 'test' as const };
  if (await findActiveCancelFlowId(tenant)) return;
  const now = runtime.clock.now();
  const flow = await createCancelFlow(tenant, DEMO_CANCEL_FLOW, now);
  await activateCancelFlow(tenant, flow.id, now);
}
