import { href, navigate } from '../router.ts';
import { RANGE_PRESETS, type DayRange } from '../ranges.ts';

/** The period of a view: presets ending today (UTC) or a custom pair of days, kept in the address. */
export function RangePicker({ range, path }: { range: DayRange; path: string }) {
  const apply = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    navigate(href(path, { from: String(form.get('from')), to: String(form.get('to')) }));
  };
  return (
    <div class="range-picker">
      <nav aria-label="Period">
        <ul class="segmented">
          {RANGE_PRESETS.map((days) => (
            <li>
              <a href={href(path, { days })} aria-current={range.preset === days ? 'true' : undefined}>
                {days} days
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <form class="custom-range" onSubmit={apply} aria-label="Custom period">
        <label>
          From <input type="date" name="from" required defaultValue={range.from} />
        </label>
        <label>
          To <input type="date" name="to" required defaultValue={range.to} />
        </label>
        <button type="submit" class="secondary">
          Apply
        </button>
      </form>
    </div>
  );
}

