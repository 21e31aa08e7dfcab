import type { CancelFeedbackResource } from './schemas/cancel-feedback.ts';
import type { CancelFeedback } from '../model/cancel-feedback.ts';

/** A completed cancel session's feedback as the merchant API shows it. */
export function cancelFeedbackResource(feedback: CancelFeedback): CancelFeedbackResource {
  return {
    session_id: feedback.session_id,
    cancel_flow_id: feedback.cancel_flow_id,
    outcome: feedback.outcome,
    reason: feedback.reason,
    sub_reason: feedback.sub_reason,
    free_text: feedback.free_text,
    responses: feedback.responses.map((response) => ({
      step: response.step,
      step_type: response.step_type,
      response_json: response.response_json,
      accepted_offer: response.accepted_offer_json === null ? null : JSON.parse(response.accepted_offer_json),
    })),
    accepted_offer: feedback.accepted_offer_json === null ? null : JSON.parse(feedback.accepted_offer_json),
    offer: feedback.offer,
    offer_application: feedback.offer_application,
    customer_id: feedback.customer_id,
    subscription_id: feedback.subscription_id,
    external_customer_id: feedback.external_customer_id,
    external_subscription_id: feedback.external_subscription_id,
    started_at: feedback.started_at,
    completed_at: feedback.completed_at,
  };
}
