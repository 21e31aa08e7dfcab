import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api/client.ts';
import type { Loaded } from '../load.ts';
import { Pager, type Pagination } from './controls.tsx';

export function Loading({ what }: { what: string }) {
  return (
    <p class="state loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="state empty">{children}</div>;
}

/** An API refusal as the API put it: its message, its code and the request id to quote to support. */
export function ErrorNotice({ error, onRetry }: { error: ApiError; onRetry?: () => void }) {
  return (
    <div class="state error" role="alert">
      <p>
        <strong>{error.message}</strong>
      </p>
      <p class="muted">
        {error.status > 0 ? `HTTP ${error.status} · ` : ''}
        <code>{error.code}</code>
        {error.requestId && (
          <>
            {' · request id '}
            <code class="request-id">{error.requestId}</code>
          </>
        )}
      </p>
      {onRetry && (
        <button type="button" class="secondary" onClick={onRetry}>
          Try again
        </button>
      )}
    </div>
  );
}

/** Loading, error or the view: every view goes through here so none forgets a state. */
export function Resolved<T>({ loaded, what, children }: { loaded: Loaded<T> & { reload: () => void }; what: string; children: (data: T) => ComponentChildren }) {
  if (loaded.state === 'loading') return <Loading what={what} />;
  if (loaded.state === 'error') return <ErrorNotice error={loaded.error} onRetry={loaded.reload} />;
  return <>{children(loaded.data)}</>;
}

interface Page<T> {
  data: T[];
  pagination: Pagination;
}

/**
 * A server-side list: loading, the refusal, the empty state, or the page's table and its pager.
 * `filtered` says whether the empty state is about the filters or about having nothing yet.
 */
export function ListResult<T>(props: {
  loaded: Loaded<Page<T>> & { reload: () => void };
  what: string;
  empty: string;
  emptyFiltered: string;
  filtered: boolean;
  path: string;
  query: URLSearchParams;
  children: (items: T[]) => ComponentChildren;
}) {
  const { loaded } = props;
  if (loaded.state === 'loading') return <Loading what={props.what} />;
  if (loaded.state === 'error') return <ErrorNotice error={loaded.error} onRetry={loaded.reload} />;
  if (loaded.data.data.length === 0) {
    return (
      <Empty>
        <p>{props.filtered ? props.emptyFiltered : props.empty}</p>
      </Empty>
    );
  }
  return (
    <>
      <div class="table-scroll">
        <table>
          <caption class="visually-hidden">{props.what}</caption>
          {props.children(loaded.data.data)}
        </table>
      </div>
      <Pager pagination={loaded.data.pagination} path={props.path} query={Object.fromEntries(props.query)} label={props.what} />
    </>
  );
}
