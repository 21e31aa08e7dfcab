export interface Bar {
  label: string;
  value: number;
  /** The bar's value as words (an amount, a count and share). */
  text: string;
}

/** A horizontal bar list: each bar's label and number are written out; the bar only repeats them. */
export function Bars({ title, bars, emptyText }: { title: string; bars: Bar[]; emptyText: string }) {
  const largest = Math.max(0, ...bars.map((bar) => bar.value));
  return (
    <section class="bars" aria-label={title}>
      <h3>{title}</h3>
      {largest === 0 ? (
        <p class="muted">{emptyText}</p>
      ) : (
        <dl>
          {bars.map((bar) => (
            <div class="bar-row">
              <dt>{bar.label}</dt>
              <dd>
                <span class="bar" style={{ width: `${Math.round((bar.value / largest) * 100)}%` }} />
                <span class="bar-text">{bar.text}</span>
              </dd>
            </div>
          ))}
        </dl>
      )}
    </section>
  );
}
