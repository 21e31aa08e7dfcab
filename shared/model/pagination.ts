/** Page-based pagination (§8): page 1..10000 (default 1), per_page 1..100 (default 20). */
export const PAGE_BOUNDS = { min: 1, max: 10_000, default: 1 } as const;
export const PER_PAGE_BOUNDS = { min: 1, max: 100, default: 20 } as const;

export interface PageRequest {
  page: number;
  per_page: number;
}

export function pageOffset(request: PageRequest): number {
  return (request.page - 1) * request.per_page;
}

/** The slice of an already ordered collection that a page asks for. */
export function slicePage<T>(items: readonly T[], request: PageRequest): T[] {
  const start = pageOffset(request);
  return items.slice(start, start + request.per_page);
}
