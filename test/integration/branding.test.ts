import { describe, expect, it } from 'vitest';
import { brandingOf } from '../../shared/store/branding.ts';
import { call, newMerchant } from '../support/api.ts';

describe('branding settings', () => {
  it('answers the defaults until set, then stores a partial change per environment', async () => {
    // Prepare
    const { merchantId, keys } = await newMerchant({ name: 'Acme Streaming' });
    // Act
    const before = await call('GET', '/v1/settings/branding', { key: keys.test_admin });
    const put = await call('PUT', '/v1/settings/branding', {
      key: keys.test_admin,
      body: { logo_url: 'https://cdn.acme.example/logo.png', accent_color: '#AA3300', support_email: 'help@acme.example' },
    });
    const renamed = await call('PUT', '/v1/settings/branding', { key: keys.test_admin, body: { name: 'Acme' } });
    // Assess
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual({ name: 'Acme Streaming', logo_url: null, accent_color: '#2251c8', support_email: null, updated_at: null });
    expect(put.status).toBe(200);
    expect(put.body.data).toMatchObject({ name: 'Acme Streaming', accent_color: '#aa3300', logo_url: 'https://cdn.acme.example/logo.png' });
    expect(renamed.body.data).toMatchObject({ name: 'Acme', accent_color: '#aa3300', support_email: 'help@acme.example' });
    expect(await brandingOf({ merchantId, environment: 'test' })).toMatchObject({ name: 'Acme', support_email: 'help@acme.example' });
    expect(await brandingOf({ merchantId, environment: 'live' })).toMatchObject({ name: 'Acme Streaming', support_email: null });
    const cleared = await call('PUT', '/v1/settings/branding', { key: keys.test_admin, body: { logo_url: null } });
    expect(cleared.body.data.logo_url).toBeNull();
  });

  it.each([
    [{ logo_url: 'http://cdn.acme.example/logo.png' }, 'logo_url', 'https'],
    [{ logo_url: 'https://10.0.0.1/logo.png' }, 'logo_url', 'domain'],
    [{ accent_color: 'red' }, 'accent_color', '#rrggbb'],
    [{ accent_color: '#12345' }, 'accent_color', '#rrggbb'],
    [{ support_email: 'not an address' }, 'support_email', 'email address'],
    [{ name: '   ' }, 'name', 'empty'],
    [{ favicon: 'x' }, 'favicon', ''],
  ])('refuses %j with 422 naming the field, storing nothing', async (body, param, words) => {
    // Prepare
    const { keys } = await newMerchant();
    // Act
    const response = await call('PUT', '/v1/settings/branding', { key: keys.test_admin, body });
    // Assess
    expect(response.status, JSON.stringify(response.body)).toBeGreaterThanOrEqual(400);
    expect(response.body.error.param).toBe(param);
    expect(response.body.error.message).toContain(words);
    expect((await call('GET', '/v1/settings/branding', { key: keys.test_admin })).body.data.updated_at).toBeNull();
  });

  it('needs an admin key', async () => {
    // Prepare
    const { keys } = await newMerchant();
    // Act
    const read = await call('GET', '/v1/settings/branding', { key: keys.test_read });
    const write = await call('PUT', '/v1/settings/branding', { key: keys.test_write, body: { name: 'X' } });
    // Assess
    expect(read.status).toBe(403);
    expect(write.status).toBe(403);
  });
});
