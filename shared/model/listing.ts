import { invalidRequest } from './errors.ts';
import type { PageRequest } from './pagination.ts';

/** What every list endpoint shares: order, page, and the answer's shape before representation. */
export const SORT_ORDERS = ['asc', 'desc'] as const;
export type SortOrder = (typeof SORT_ORDERS)[number];

export interface ListRequest<Sort extends string> extends PageRequest {
  sort: Sort;
  order: SortOrder;
}

export interface ListResult<T> {
  items: T[];
  /** Every record matching the filters, not only this page's (§8). */
  total: number;
}

/** A window of creation times in epoch milliseconds: `from` inclusive, `to` exclusive; either end open. */
export interface TimeWindow {
  from?: number;
  to?: number;
}

/** Whole milliseconds plus whether the text carried a finer, non-zero fraction (ids and timestamps stop at ms). */
function preciseInstant(iso: string): { ms: number; finer: boolean } {
  const fraction = /\.(\d+)/.exec(iso)?.[1] ?? '';
  return { ms: Date.parse(iso), finer: /[1-9]/.test(fraction.slice(3)) };
}

/**
 * created_after / created_before (both exclusive, §4.2/§4.3) as a window of whole milliseconds. An
 * empty window is a mistake in the request, not an empty answer.
 */
export function createdWindow(after: string | undefined, before: string | undefined): TimeWindow {
  const window: TimeWindow = {};
  if (after !== undefined) window.from = preciseInstant(after).ms + 1;
  if (before !== undefined) {
    const instant = preciseInstant(before);
    window.to = instant.ms + (instant.finer ? 1 : 0);
  }
  if (window.from !== undefined && window.to !== undefined && window.from >= window.to) {
    throw invalidRequest('created_after must be earlier than created_before', 'created_after');
  }
  return window;
}

export function contains(window: TimeWindow, at: string): boolean {
  const ms = Date.parse(at);
  return (window.from === undefined || ms >= window.from) && (window.to === undefined || ms < window.to);
}
