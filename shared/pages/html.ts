import { randomBytes } from 'node:crypto';

/** Small, dependency-free HTML building for the server-rendered pages: every value from outside goes through `escape`. */
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escape = (value: string): string => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** A fresh CSP nonce per response: the page's own <style> and <script> carry it, nothing else runs. */
export const newNonce = (): string => randomBytes(16).toString('base64');

/** Black or white, whichever reads better on `hex` (WCAG relative luminance), for text on the accent colour. */
export function textOn(hex: string): '#000000' | '#ffffff' {
  const channel = (offset: number) => {
    const value = parseInt(hex.slice(offset, offset + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
  // Contrast with white is 1.05 / (L + 0.05); with black (L + 0.05) / 0.05: the larger wins.
  return 1.05 / (luminance + 0.05) >= (luminance + 0.05) / 0.05 ? '#ffffff' : '#000000';
}
