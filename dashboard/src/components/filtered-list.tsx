import type { ComponentChildren } from 'preact';
import { useLoad } from '../load.ts';
import { FilterForm, type Filter } from './filter-form.tsx';
import { ListResult } from './states.tsx';
import type { Pagination } from './controls.tsx';

/** Query values as the API takes them: a date filter becomes the start of that UTC day. */
export function apiQuery(query: URLSearchParams, names: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = query.get(name);
    if (!value) continue;
    values[name] = /^created_(after|before)$/.test(name) && /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value;
  }
  return values;
}

/**
 * A list view's body: its server-side filters (named as the API's parameters, kept in the address),
 * the page they load, and its states. `load` gets the API query the address holds.
 */
export function FilteredList<T>(props: {
  path: string;
  filters: Filter[];
  query: URLSearchParams;
  load: (values: Record<string, string>) => Promise<{ data: T[]; pagination: Pagination }>;
  what: string;
  label: string;
  empty: string;
  emptyFiltered: string;
  children: (items: T[]) => ComponentChildren;
}) {
  const values = apiQuery(props.query, [...props.filters.map((filter) => filter.name), 'page']);
  const loaded = useLoad(() => props.load(values), JSON.stringify(values));
  return (
    <>
      <FilterForm key={props.query.toString()} path={props.path} filters={props.filters} query={props.query} error={loaded.state === 'error' ? loaded.error : null} label={props.label} />
      <ListResult loaded={loaded} what={props.what} empty={props.empty} emptyFiltered={props.emptyFiltered} filtered={Object.keys(values).length > 0} path={props.path} query={props.query}>
        {props.children}
      </ListResult>
    </>
  );
}
