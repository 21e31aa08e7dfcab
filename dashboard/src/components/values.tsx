import { localDateTime, money, utcText } from '../format.ts';

/** A timestamp in the browser's zone; its UTC form on hover and for assistive technology's details. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">—</span>;
  return (
    <time dateTime={at} title={utcText(at)}>
      {localDateTime(at)}
    </time>
  );
}

export function Money({ amount, currency }: { amount: number; currency: string }) {
  return <span class="money">{money(amount, currency)}</span>;
}

/** A status as a labelled badge: its word is always shown, colour only repeats it. */
export function Status({ value }: { value: string }) {
  return <span class={`badge badge-${value}`}>{value.replace(/_/g, ' ')}</span>;
}
