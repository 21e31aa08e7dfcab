import * as z from '../zod.ts';
import { campaignAnalyticsSchema, recoveryAnalyticsSchema } from '../representations/schemas/analytics.ts';
import { apiKeySchema, apiKeyWithSecretSchema, callerSchema } from '../representations/schemas/api-key.ts';
import {
  activatedCampaignSchema,
  archivedCampaignSchema,
  campaignListItemSchema,
  campaignSchema,
  createdCampaignSchema,
  pausedCampaignSchema,
  updatedCampaignSchema,
} from '../representations/schemas/campaign.ts';
import { brandingSchema } from '../representations/schemas/branding.ts';
import { cancelFeedbackSchema } from '../representations/schemas/cancel-feedback.ts';
import { cancelFlowSchema } from '../representations/schemas/cancel-flow.ts';
import { cancelSigningSecretSchema } from '../representations/schemas/cancel-signing-secret.ts';
import { advancedSessionSchema, completedSessionSchema, sessionStateSchema, startedSessionSchema } from '../representations/schemas/cancel-session.ts';
import { deletedObject, pageOf, single } from '../representations/schemas/common.ts';
import { customerDetailSchema, customerErasureSchema, customerListItemSchema } from '../representations/schemas/customer.ts';
import { enrollmentSchema } from '../representations/schemas/enrollment.ts';
import { customerPaymentSchema, paymentDetailSchema, paymentEventSchema, paymentSchema, retryStartedSchema } from '../representations/schemas/payment.ts';
import { processorConnectionSchema } from '../representations/schemas/processor-connection.ts';
import { webhookDeliverySchema, webhookEndpointSchema, webhookEndpointWithSecretSchema } from '../representations/schemas/webhook-endpoint.ts';
import { deletedTemplateSchema, messageTemplateSchema, templatePreviewSchema, templateTestSendSchema } from '../representations/schemas/message-template.ts';
import { webhookReceiptSchema } from '../representations/schemas/webhook-receipt.ts';

/**
 * What each route's handler answers on success, by handler module (the route table's `handler`).
 * Requests are described by the handlers themselves (their contracts); responses cannot be, since
 * handlers must not load response schemas. The representation functions are typed from these
 * schemas, and test/integration/openapi-responses.test.ts checks real answers of every route against them.
 */
export interface OperationDescription {
  summary: string;
  status: 200 | 201;
  body: z.ZodType;
}

const created = (summary: string, body: z.ZodType): OperationDescription => ({ summary, status: 201, body });
const ok = (summary: string, body: z.ZodType): OperationDescription => ({ summary, status: 200, body });

export const OPERATIONS: Readonly<Record<string, OperationDescription>> = {
  'auth/me': ok('Describe the presented API key: merchant, environment, scopes and limits', single(callerSchema)),
  'api-keys/list': ok('List API keys, newest first', pageOf(apiKeySchema)),
  'api-keys/create': created('Create an API key; its secret is in this response only', single(apiKeyWithSecretSchema)),
  'api-keys/rotate': ok('Rotate a key: a new secret, the old one works 24 more hours', single(apiKeyWithSecretSchema)),
  'api-keys/revoke': ok('Revoke a key, and any secret in its grace period, now', single(apiKeySchema)),
  'campaigns/list': ok('List campaigns', pageOf(campaignListItemSchema)),
  'campaigns/get': ok('Get a campaign with every field', single(campaignSchema)),
  'campaigns/create': created('Create a draft campaign', single(createdCampaignSchema)),
  'campaigns/update': ok('Update a campaign: the fields sent, as a new definition version', single(updatedCampaignSchema)),
  'campaigns/activate': ok('Activate a draft or paused campaign', single(activatedCampaignSchema)),
  'campaigns/pause': ok('Pause an active campaign', single(pausedCampaignSchema)),
  'campaigns/archive': ok('Archive a campaign for good', single(archivedCampaignSchema)),
  'campaigns/delete': ok('Delete a draft campaign', single(deletedObject('cmp'))),
  'campaigns/enroll': created('Enroll a customer by hand', single(enrollmentSchema)),
  'campaigns/enrollments': ok("List a campaign's enrollments, newest first", pageOf(enrollmentSchema)),
  'templates/list': ok('List templates: the built-in ones, then your own', pageOf(messageTemplateSchema)),
  'templates/create': created('Create an email or sms template (Liquid over the documented variables)', single(messageTemplateSchema)),
  'templates/get': ok('Get a template', single(messageTemplateSchema)),
  'templates/update': ok('Update a template: the fields sent; built-in templates are read-only', single(messageTemplateSchema)),
  'templates/delete': ok('Delete a template no campaign uses', single(deletedTemplateSchema)),
  'templates/preview': ok("Render a template with sample data or a customer's most recent open failure", single(templatePreviewSchema)),
  'templates/test-send': ok('Send a template to one email address or phone number (rate limited)', single(templateTestSendSchema)),
  'cancel-flows/list': ok('List cancel flows, newest first', pageOf(cancelFlowSchema)),
  'cancel-flows/get': ok('Get a cancel flow with its steps', single(cancelFlowSchema)),
  'cancel-flows/create': created('Create a draft cancel flow', single(cancelFlowSchema)),
  'cancel-flows/update': ok('Update a cancel flow: the fields sent', single(cancelFlowSchema)),
  'cancel-flows/activate': ok("Activate a cancel flow; the environment's previous one becomes inactive", single(cancelFlowSchema)),
  'cancel-flows/archive': ok('Archive a cancel flow for good', single(cancelFlowSchema)),
  'cancel-flows/signing-secret': ok("The secret your server signs cancel-session starts with (auth_hash); made on first read", single(cancelSigningSecretSchema)),
  'cancel-flows/roll-signing-secret': ok('Roll the cancel signing secret: a new one now, the previous one accepted 24 more hours', single(cancelSigningSecretSchema)),
  'cancel-feedback/list': ok('List what subscribers answered in completed cancel sessions', pageOf(cancelFeedbackSchema)),
  'payments/list': ok('List payments', pageOf(paymentSchema)),
  'payments/get': ok('Get a payment with its customer and retries', single(paymentDetailSchema)),
  'payments/events': ok("List a payment's history, oldest first: the events webhooks delivered about it", pageOf(paymentEventSchema)),
  'payments/retry': ok('Retry a pending or communication_pending payment now', single(retryStartedSchema)),
  'customers/list': ok('List and search customers', pageOf(customerListItemSchema)),
  'customers/get': ok('Get a customer with subscriptions, payment method and recovery summary', single(customerDetailSchema)),
  'customers/payments': ok("List a customer's payments", pageOf(customerPaymentSchema)),
  'customers/enrollments': ok("List a customer's enrollments in every campaign, newest first", pageOf(enrollmentSchema)),
  'customers/erase': ok("Erase a customer's personal data (GDPR); payments are kept anonymised", single(customerErasureSchema)),
  'webhook-endpoints/list': ok('List outbound webhook endpoints', pageOf(webhookEndpointSchema)),
  'webhook-endpoints/create': created('Create an outbound webhook endpoint; its signing secret is in this response only', single(webhookEndpointWithSecretSchema)),
  'webhook-endpoints/get': ok('Get an outbound webhook endpoint (its signing secret is never shown again)', single(webhookEndpointSchema)),
  'webhook-endpoints/update': ok('Update an endpoint; enabled=true also re-enables one disabled for failing', single(webhookEndpointSchema)),
  'webhook-endpoints/delete': ok('Delete an endpoint', single(deletedObject('we'))),
  'webhook-endpoints/rotate-secret': ok('Rotate the signing secret; both sign for 24 hours', single(webhookEndpointWithSecretSchema)),
  'webhook-endpoints/deliveries': ok("List an endpoint's deliveries of the last 30 days", pageOf(webhookDeliverySchema)),
  'webhook-endpoints/replay': ok('Queue one more attempt of a delivery', single(webhookDeliverySchema)),
  'analytics/recovery': ok('Recovery analytics: failure cohorts per currency, with a series (the last 30 days unless from/to say otherwise)', single(recoveryAnalyticsSchema)),
  'analytics/campaigns': ok('Campaign analytics: enrollment cohorts per campaign (the last 30 days unless from/to say otherwise)', single(campaignAnalyticsSchema)),
  'settings/branding': ok('The branding customers see on messages and the card-update page (defaults until set)', single(brandingSchema)),
  'settings/update-branding': ok('Change the branding: the fields sent', single(brandingSchema)),
  'processors/list': ok('List processor connections and their webhook URLs', pageOf(processorConnectionSchema)),
  'processors/connect': ok('Connect a processor (or replace its secrets); returns the webhook URL to configure there', single(processorConnectionSchema)),
  'cancel-sessions/start': created("Start a cancel session on the merchant's active flow", startedSessionSchema),
  'cancel-sessions/get': ok('Read a cancel session and its current step', sessionStateSchema),
  'cancel-sessions/advance': ok('Record the response to the current step and move on', advancedSessionSchema),
  'cancel-sessions/complete': ok('Complete the session: saved or churned', completedSessionSchema),
  'card-updates/page': ok("The customer's card-update page (HTML), in the merchant's branding", z.string()),
  'card-updates/submit': ok('Take the card: the test-mode form, Braintree Drop-in\'s nonce, or on to Stripe Checkout (303)', z.string()),
  'card-updates/stripe-return': ok("Stripe Checkout's return: the card made the default, the payments retried (HTML)", z.string()),
  'webhooks/stripe': ok('Receive a Stripe event', webhookReceiptSchema),
  'webhooks/braintree': ok('Receive a Braintree notification', webhookReceiptSchema),
  'webhooks/generic': ok('Receive an event in the generic format (any other processor)', webhookReceiptSchema),
};

/** What each area of the API is for: the tags, one per folder of functions/ (the route table's handler prefix). */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  auth: 'The presented API key: whose it is, its environment, scopes and limits.',
  'api-keys': 'Secret keys of the merchant: create with scopes, rotate with a 24-hour grace period, revoke.',
  campaigns: 'Dunning campaigns: multi-step email and sms sequences for hard declines, from draft to active, paused and archived, with their enrollments.',
  templates: 'Message templates for campaign steps: the built-in ones and your own, in Liquid, with preview and test sends (docs/templates.md).',
  'cancel-flows': 'Cancel flows the widget runs when a subscriber cancels: survey, offer and confirm steps; one active flow per environment.',
  'cancel-feedback': 'What subscribers answered in completed cancel sessions.',
  payments: 'Failed payments the processors reported, their classification, retries and outcome.',
  customers: 'Customers with failed payments: subscriptions, payment method, recovery summary, enrollments; erasure of personal data.',
  'webhook-endpoints': 'Outbound webhooks: endpoints that receive signed service events, and their deliveries.',
  analytics: 'Recovery and campaign analytics by failure or enrollment cohort, per currency.',
  settings: "The merchant's settings: the branding (name, logo, accent colour, support email) its customers see.",
  processors: 'Processor connections (Stripe, Braintree, any other in the generic format) and the webhook URLs to configure there.',
  'cancel-sessions': "The cancel-session API the widget calls in the subscriber's browser, with the session token as credential.",
  'card-updates': "The card-update page a dunning message's personal link opens (HTML for the customer's browser).",
  webhooks: 'Inbound processor webhooks: failed and settled charges, signed by the processor.',
};
