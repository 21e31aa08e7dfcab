import type { OfferConfig } from './cancel-flow-steps.ts';
import type { Outcome } from './cancel-session.ts';
import type { SessionResponse } from './cancel-session-schema.ts';

/**
 * The feedback record a completed cancel session leaves (§4.5 "a feedback record with the full
 * response history"): one per session, keyed by the session id, which is what makes storing a
 * completion idempotent when the dead-letter worker replays it.
 */
export type OfferApplicationStatus = 'pending' | 'applied' | 'manual' | 'failed';

/**
 * What became of the accepted offer at the processor. pending: waiting for the offer-application
 * consumer; applied: done (reference names the processor's object); manual: the service cannot apply
 * it, the merchant must (reason says why); failed: the processor refused (reason has its answer).
 */
export interface OfferApplication {
  status: OfferApplicationStatus;
  reason: string | null;
  reference: string | null;
  updated_at: string;
}

export interface CancelFeedback {
  session_id: string;
  cancel_flow_id: string;
  flow_version: number;
  outcome: Outcome;
  reason: string;
  sub_reason: string | null;
  free_text: string | null;
  responses: SessionResponse[];
  accepted_offer_json: string | null;
  /** The flow's configuration of the offer the subscriber accepted (on a save), or null. */
  offer: OfferConfig | null;
  /** The ids the widget sent. */
  external_customer_id: string;
  external_subscription_id: string;
  /** Our records they resolved to at completion, or null when the subscriber is not a customer we know. */
  customer_id: string | null;
  subscription_id: string | null;
  psp: string | null;
  psp_customer_id: string | null;
  psp_subscription_id: string | null;
  started_at: string;
  completed_at: string;
  recorded_at: string;
  /** request: stored by the complete call itself; replay: by the dead-letter worker after a failure. */
  recorded_via: 'request' | 'replay';
  offer_application: OfferApplication | null;
}
