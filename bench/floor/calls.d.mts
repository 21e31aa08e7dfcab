/** bench/floor/calls.mjs: the recorded requests' commands, and the items a request names. */
export const COMMANDS: Record<string, new (input: never) => object>;
export function itemsOf(operation: string, input: any): number;
