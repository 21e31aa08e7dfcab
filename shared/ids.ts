import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Prefixed, time-sortable, unguessable identifier (ULID layout: 48-bit millisecond time, 80 random bits,
 * Crockford base32, lowercase), e.g. `pay_01jd3k...`. Sorting ids sorts by creation time, which lets
 * list queries order by id without a separate timestamp attribute.
 */
export function newId(prefix: string, at: Date = new Date()): string {
  let time = at.getTime();
  let timePart = '';
  for (let i = 0; i < 10; i++) {
    timePart = CROCKFORD[time % 32] + timePart;
    time = Math.floor(time / 32);
  }
  const random = randomBytes(16);
  let randomPart = '';
  for (let i = 0; i < 16; i++) randomPart += CROCKFORD[random[i]! % 32];
  return `${prefix}_${timePart}${randomPart}`;
}

/** A high-entropy secret in base62 (each char ~5.95 bits; 32 chars ≈ 190 bits). Rejection sampling avoids modulo bias. */
export function randomSecret(length = 32): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}
