import type { ApiError } from '../api/client.ts';
import { words } from '../format.ts';
import { href, navigate } from '../router.ts';

export interface Filter {
  /** The API's query parameter. */
  name: string;
  label: string;
  hint?: string;
  options?: readonly string[];
  /** A choice that always has a value (sort, order): no "any". */
  noAny?: boolean;
  type?: 'text' | 'date';
  inputMode?: 'numeric';
}

/**
 * A list's server-side filters as a form: labels always visible, and a refusal of the API that
 * names one of its parameters shown next to that field. Submitting changes the address, which
 * loads the list again from page 1.
 */
export function FilterForm({ path, filters, query, error, label }: { path: string; filters: Filter[]; query: URLSearchParams; error: ApiError | null; label: string }) {
  const submit = (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const values: Record<string, string> = {};
    for (const filter of filters) {
      const value = String(form.get(filter.name) ?? '').trim();
      if (value) values[filter.name] = value;
    }
    navigate(href(path, values));
  };
  return (
    <form class="filters" onSubmit={submit} aria-label={label}>
      {filters.map((filter) => {
        const id = `filter-${filter.name}`;
        const invalid = error?.param === filter.name;
        const described = [filter.hint ? `${id}-hint` : '', invalid ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
        return (
          <div class="field">
            <label for={id}>{filter.label}</label>
            {filter.hint && (
              <span id={`${id}-hint`} class="hint">
                {filter.hint}
              </span>
            )}
            {invalid && (
              <span id={`${id}-error`} class="field-error">
                {error.message}
              </span>
            )}
            {filter.options ? (
              <select id={id} name={filter.name} aria-invalid={invalid} aria-describedby={described}>
                {!filter.noAny && <option value="">Any</option>}
                {filter.options.map((option) => (
                  <option value={option} selected={query.get(filter.name) === option}>
                    {words(option)}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                name={filter.name}
                {...(filter.type === 'date' ? { type: 'date' as const } : { type: 'text' as const, inputMode: filter.inputMode })}
                defaultValue={query.get(filter.name) ?? ''}
                aria-invalid={invalid}
                aria-describedby={described}
              />
            )}
          </div>
        );
      })}
      <div class="filter-actions">
        <button type="submit" class="primary">
          Apply filters
        </button>
        <a href={href(path)}>Clear</a>
      </div>
    </form>
  );
}
