import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import type { Operation } from '../api/scopes.gen.ts';
import { usePermission } from '../caller.ts';
import { href } from '../router.ts';
import { count } from '../format.ts';

/**
 * A button for an API operation: disabled, with the reason shown beside it (and tied to it for
 * assistive technology), when the key may not call the operation or the resource's state forbids it.
 */
export function ActionButton(props: {
  operation: Operation;
  onClick?: () => void;
  children: ComponentChildren;
  running?: boolean;
  /** Why the resource's state forbids the action, when it does. */
  blockedBecause?: string | null;
  variant?: 'primary' | 'secondary' | 'danger';
  type?: 'button' | 'submit';
}) {
  const permission = usePermission(props.operation);
  const reason = permission.reason ?? props.blockedBecause ?? null;
  const reasonId = useId();
  return (
    <span class="action">
      <button
        type={props.type ?? 'button'}
        class={props.variant ?? 'primary'}
        disabled={reason !== null || props.running}
        aria-describedby={reason ? reasonId : undefined}
        onClick={props.type === 'submit' ? undefined : props.onClick}
      >
        {props.running ? 'Working…' : props.children}
      </button>
      {reason && (
        <span id={reasonId} class="reason">
          {reason}
        </span>
      )}
    </span>
  );
}

export interface Pagination {
  total: number;
  page: number;
  per_page: number;
  total_pages: number;
}

/** Server-side pages: where this page sits in the total, and links to its neighbours. */
export function Pager({ pagination, path, query, label }: { pagination: Pagination; path: string; query: Record<string, string | undefined>; label: string }) {
  const { total, page, per_page, total_pages } = pagination;
  if (total === 0) return null;
  const first = (page - 1) * per_page + 1;
  const last = Math.min(total, page * per_page);
  return (
    <nav class="pager" aria-label={`${label} pages`}>
      <span>
        {count(first)}–{count(last)} of {count(total)}
      </span>
      {page > 1 ? <a href={href(path, { ...query, page: page - 1 })}>Previous page</a> : null}
      {page < total_pages ? <a href={href(path, { ...query, page: page + 1 })}>Next page</a> : null}
    </nav>
  );
}
