import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * Prefixed, time-sortable, unguessable identifier (ULID layout: 48-bit millisecond time, 80 random bits,
 * Crockford base32, lowercase), e.g. `pay_01jd3k...`. Sorting ids sorts by creation time, which lets
 * list queries order by id without a separate timestamp attribute.
 */
export function newId(prefix: string, at: Date = new Date()): string {
  const timePart = idTimePart(at.getTime());
  const random = randomBytes(16);
  let randomPart = '';
  for (let i = 0; i < 16; i++) randomPart += CROCKFORD[random[i]! % 32];
  return `${prefix}_${timePart}${randomPart}`;
}

/**
 * The ten characters an id made at `epochMs` starts with (after its prefix). Ids of one prefix sort
 * by these, so a creation-time range is a sort-key range: `pay_<idTimePart(from)>` ≤ id.
 */
export function idTimePart(epochMs: number): string {
  let time = Math.max(0, Math.min(epochMs, 2 ** 48 - 1));
  let timePart = '';
  for (let i = 0; i < 10; i++) {
    timePart = CROCKFORD[time % 32] + timePart;
    time = Math.floor(time / 32);
  }
  return timePart;
}

/** When an id made by `newId` was created (its ULID time part), or undefined if it is not such an id. */
export function idTime(id: string): Date | undefined {
  const match = /^[a-z]+_([0-9a-hjkmnp-tv-z]{10})[0-9a-hjkmnp-tv-z]{16}$/.exec(id);
  if (!match) return undefined;
  let time = 0;
  for (const char of match[1]!) time = time * 32 + CROCKFORD.indexOf(char);
  return new Date(time);
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
