import { afterEach, describe, expect, it, vi } from 'vitest';
import { addLogContext, log, scrubPersonalData, scrubSecrets, setLogContext, withLogScope } from '../../shared/log.ts';
import { captureLogLines } from '../support/log-lines.ts';

describe('personal data in log lines', () => {
  afterEach(() => vi.restoreAllMocks());

  it('masks email addresses and international phone numbers, as outside services quote them in errors', () => {
    expect(scrubPersonalData('MessageRejected: Email address is not verified. The following identities failed the check: Ada.Lovelace+billing@example.co.uk')).toBe(
      'MessageRejected: Email address is not verified. The following identities failed the check: [email]',
    );
    expect(scrubPersonalData('{"error_message":"Invalid destination +44 20 7946 0958 and +15555550123"}')).toBe('{"error_message":"Invalid destination [phone] and [phone]"}');
  });

  it('masks Stripe secret and restricted keys and webhook secrets, and leaves Stripe ids and masked keys alone', () => {
    expect(scrubSecrets('{"error_message":"bad key sk_live_51Habc123 or rk_test_9z, secret whsec_AbC0"}')).toBe(
      '{"error_message":"bad key [secret] or [secret], secret [secret]"}',
    );
    const line = '{"payment":"pi_3Mtw","customer":"cus_NffrFeUfNV2Hib","message":"Invalid API Key provided: sk_test_****4242"}';
    expect(scrubSecrets(line)).toBe(line);
  });

  it('leaves ids, times, amounts and module paths alone', () => {
    const line =
      '{"time":"2026-11-23T09:00:00.000+01:00","merchant_id":"mer_01jd3k","amount":2900,"stack":"at send (/var/task/node_modules/@aws-sdk/client-sesv2/dist-cjs/index.js:12:34)"}';
    expect(scrubPersonalData(line)).toBe(line);
  });

  it('writes each line with the context set for the request and what it learned on the way, scrubbed', async () => {
    // Prepare
    const lines = captureLogLines('stderr');
    // Act
    await withLogScope(async () => {
      setLogContext({ request_id: 'req_1', route: 'POST /webhooks/{psp}/{connection_id}' });
      addLogContext({ merchant_id: 'mer_1' });
      log.error('Unhandled error', { error_message: 'could not send to grace@example.com' });
    });
    // Assess
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      {
        level: 'error',
        time: expect.any(String),
        message: 'Unhandled error',
        request_id: 'req_1',
        route: 'POST /webhooks/{psp}/{connection_id}',
        merchant_id: 'mer_1',
        error_message: 'could not send to [email]',
      },
    ]);
  });
});
