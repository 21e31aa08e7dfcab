/**
 * The dashboard's security headers, one definition for CloudFront's response headers policy
 * (lib/dashboard.ts) and the local server (bin/local/dashboard.ts), so the browser tests run the app
 * under the policy it is deployed with. The app is its own origin's scripts and styles only, talks
 * only to its own origin (/v1 sits behind the same host), and may not be framed.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Sent beside the CSP everywhere; HSTS only over HTTPS (CloudFront), never on the local http server. */
export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/** The path the app is built for and served at, locally and behind CloudFront. */
export const DASHBOARD_PATH = '/dashboard';
