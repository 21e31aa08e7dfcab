/**
 * The two Braintree gateway calls the live processor makes, over fetch, in place of the `braintree`
 * package (~300 KB of the bundle with its XML libraries: docs/decisions.md, "Processor SDKs"). It
 * sends what the package (3.40) sent for them: the merchant path, Basic auth with the public and
 * private key, X-ApiVersion 6, a JSON body with underscored keys, and it reads the XML answer the
 * way the package did (braintree-xml.ts). HTTP statuses become the package's error kinds.
 *
 * Nothing is ever repeated here: Braintree has no idempotency keys, so a sale sent twice is two sales.
 */
import * as z from '../../zod.ts';
import { readBraintreeXml } from '../../processors/braintree-xml.ts';
import { XmlSyntaxError } from '../../processors/xml-reader.ts';

/** Where a gateway is; braintree.Environment has this shape, so a test can point the adapter at a fake. */
export interface BraintreeGatewayAddress {
  server: string;
  port: string | number;
  ssl: boolean;
}

export const BRAINTREE_PRODUCTION: BraintreeGatewayAddress = { server: 'api.braintreegateway.com', port: 443, ssl: true };
export const BRAINTREE_SANDBOX: BraintreeGatewayAddress = { server: 'api.sandbox.braintreegateway.com', port: 443, ssl: true };

const API_VERSION = '6';

export interface BraintreeGatewayKeys {
  merchantId: string;
  publicKey: string;
  privateKey: string;
}

/** The package's error names (exceptions.js), and whether asking again later may get another answer. */
const ERROR_KINDS = {
  authenticationError: false,
  authorizationError: false,
  notFoundError: false,
  upgradeRequired: false,
  requestTimeoutError: true,
  tooManyRequestsError: true,
  serverError: true,
  serviceUnavailableError: true,
  gatewayTimeoutError: true,
  /** Network errors, timeouts, other statuses and answers that cannot be read. */
  unexpectedError: true,
} as const;

export type BraintreeErrorKind = keyof typeof ERROR_KINDS;

export class BraintreeGatewayError extends Error {
  override readonly name = 'BraintreeGatewayError';

  constructor(
    readonly kind: BraintreeErrorKind,
    message: string,
  ) {
    super(message);
  }

  get retryable(): boolean {
    return ERROR_KINDS[this.kind];
  }
}

const STATUS_ERRORS: Readonly<Record<number, [BraintreeErrorKind, string]>> = {
  401: ['authenticationError', 'Authentication Error'],
  403: ['authorizationError', 'Authorization Error'],
  404: ['notFoundError', 'Not Found'],
  408: ['requestTimeoutError', 'Request Timeout Error'],
  426: ['upgradeRequired', 'Upgrade Required'],
  429: ['tooManyRequestsError', 'Too Many Requests'],
  500: ['serverError', 'Server Error'],
  503: ['serviceUnavailableError', 'Service Unavailable Error'],
  504: ['gatewayTimeoutError', 'Gateway Timeout Error'],
};

const text = z.string().nullish();

const transactionSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string().min(1),
  processorResponseCode: text,
  /** The card network's own response code and Mastercard's advice code (the network retry rules read them). */
  networkResponseCode: text,
  merchantAdviceCode: text,
  processorResponseText: text,
  processorSettlementResponseCode: text,
  gatewayRejectionReason: text,
  createdAt: text,
  subscription: z.looseObject({ billingPeriodStartDate: text }).nullish(),
});
export type BraintreeTransaction = z.infer<typeof transactionSchema>;

const subscriptionAnswer = z.looseObject({
  subscription: z.looseObject({ id: z.string().min(1), status: z.string().min(1), transactions: z.array(transactionSchema) }),
});
export type BraintreeSubscription = z.infer<typeof subscriptionAnswer>['subscription'];

/** A created sale is `<transaction>`; a refused one `<api-error-response>`, with the transaction when one was made (a decline). */
const saleAnswer = z.union([
  z.object({
    /** `errors` nest by the attribute path they concern: `{ errors: [...], transaction: { errors: [...] } }`. */
    apiErrorResponse: z.looseObject({ message: z.string(), errors: z.unknown(), transaction: transactionSchema.nullish() }),
  }),
  z.object({ transaction: transactionSchema }),
]);

const validationError = z.looseObject({ code: z.string(), message: z.string() });
type ValidationError = { code: string; message: string };

export type BraintreeSaleResult =
  | { success: true; transaction: BraintreeTransaction }
  | { success: false; message: string; transaction: BraintreeTransaction | null; errors: ValidationError[] };

const clientTokenAnswer = z.object({ clientToken: z.looseObject({ value: z.string().min(1) }) });

const creditCardSchema = z.looseObject({
  token: z.string().min(1),
  cardType: text,
  last4: text,
  expirationMonth: text,
  expirationYear: text,
});
export type BraintreeCreditCard = z.infer<typeof creditCardSchema>;

/** A vaulted payment method is `<credit-card>`; a refused one (a failed verification) `<api-error-response>`. */
const vaultAnswer = z.union([z.object({ apiErrorResponse: z.looseObject({ message: z.string() }) }), z.object({ creditCard: creditCardSchema })]);

export interface BraintreeGateway {
  findSubscription(subscriptionId: string): Promise<BraintreeSubscription>;
  /** clientToken.generate for the customer: what the Drop-in UI in the customer's browser authorizes with. */
  clientToken(customerId: string): Promise<string>;
  /** paymentMethod.create from a Drop-in nonce, verified and made the customer's default; a refusal is its message. */
  vaultNonce(customerId: string, nonce: string): Promise<{ card: BraintreeCreditCard } | { refused: string }>;
  /** subscription.update: its payment method becomes `token`. */
  setSubscriptionPaymentMethod(subscriptionId: string, token: string): Promise<void>;
  /** subscription.retryCharge: a sale of `amount` for the subscription's past-due balance, submitted for settlement. */
  retryCharge(subscriptionId: string, amount: string): Promise<BraintreeSaleResult>;
}

export function createBraintreeGateway(address: BraintreeGatewayAddress, keys: BraintreeGatewayKeys, timeoutMs: number): BraintreeGateway {
  const base = `${address.ssl ? 'https' : 'http'}://${address.server}:${address.port}/merchants/${encodeURIComponent(keys.merchantId)}`;
  const headers = {
    Authorization: `Basic ${Buffer.from(`${keys.publicKey}:${keys.privateKey}`).toString('base64')}`,
    'X-ApiVersion': API_VERSION,
    Accept: 'application/xml',
    'Content-Type': 'application/json',
    'Accept-Encoding': 'gzip',
  };
  const send = async (path: string, init: RequestInit): Promise<unknown> => {
    let response: Response;
    let body: string;
    try {
      response = await fetch(`${base}${path}`, { ...init, headers, signal: AbortSignal.timeout(timeoutMs) });
      body = await response.text();
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      throw new BraintreeGatewayError('unexpectedError', timedOut ? 'Request timed out' : `Unexpected request error: ${String(error)}`);
    }
    if (response.status !== 200 && response.status !== 201 && response.status !== 422) {
      const [kind, message] = STATUS_ERRORS[response.status] ?? ['unexpectedError', `Unexpected HTTP response: ${response.status}`];
      throw new BraintreeGatewayError(kind, message);
    }
    return readAnswer(body);
  };
  return {
    async findSubscription(subscriptionId) {
      // The package refuses such ids before sending anything (they could not name a subscription).
      if (!/^[A-Za-z0-9_-]+$/.test(subscriptionId)) throw new BraintreeGatewayError('notFoundError', 'Not Found');
      return parse(subscriptionAnswer, await send(`/subscriptions/${subscriptionId}`, { method: 'GET' })).subscription;
    },
    async clientToken(customerId) {
      const body = { client_token: { customer_id: customerId, version: 2 } };
      return parse(clientTokenAnswer, await send('/client_token', { method: 'POST', body: JSON.stringify(body) })).clientToken.value;
    },
    async vaultNonce(customerId, nonce) {
      const body = { payment_method: { customer_id: customerId, payment_method_nonce: nonce, options: { make_default: true, verify_card: true } } };
      const answer = parse(vaultAnswer, await send('/payment_methods', { method: 'POST', body: JSON.stringify(body) }));
      return 'creditCard' in answer ? { card: answer.creditCard } : { refused: answer.apiErrorResponse.message };
    },
    async setSubscriptionPaymentMethod(subscriptionId, token) {
      if (!/^[A-Za-z0-9_-]+$/.test(subscriptionId)) throw new BraintreeGatewayError('notFoundError', 'Not Found');
      const body = { subscription: { payment_method_token: token } };
      parse(subscriptionAnswer, await send(`/subscriptions/${subscriptionId}`, { method: 'PUT', body: JSON.stringify(body) }));
    },
    async retryCharge(subscriptionId, amount) {
      const sale = { transaction: { amount, subscription_id: subscriptionId, options: { submit_for_settlement: true }, type: 'sale' } };
      const answer = parse(saleAnswer, await send('/transactions', { method: 'POST', body: JSON.stringify(sale) }));
      if (!('apiErrorResponse' in answer)) return { success: true, transaction: answer.transaction };
      const refusal = answer.apiErrorResponse;
      return { success: false, message: refusal.message, transaction: refusal.transaction ?? null, errors: deepErrors(refusal.errors) };
    },
  };
}

function readAnswer(body: string): unknown {
  try {
    return readBraintreeXml(body);
  } catch (error) {
    if (error instanceof XmlSyntaxError) throw new BraintreeGatewayError('unexpectedError', `Unreadable answer: ${error.message}`);
    throw error;
  }
}

function parse<T>(schema: z.ZodType<T>, answer: unknown): T {
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new BraintreeGatewayError('unexpectedError', `Unexpected answer: ${issue?.path.join('.') ?? ''} ${issue?.message ?? ''}`.trim());
}

/** Every validation error in the tree, each level's own before its nested ones (the package's deepErrors order). */
function deepErrors(tree: unknown): ValidationError[] {
  if (tree === null || typeof tree !== 'object' || Array.isArray(tree)) return [];
  const { errors: own, ...nested } = tree as Record<string, unknown>;
  const errors = Array.isArray(own) ? own.flatMap((error) => validationError.safeParse(error).data ?? []) : [];
  return [...errors.map(({ code, message }) => ({ code, message })), ...Object.values(nested).flatMap(deepErrors)];
}
