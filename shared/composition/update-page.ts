import { requireEnv } from '../config.ts';
import type { UpdatePageAddress } from '../ports/update-page.ts';

/**
 * The edge API's address, as configured (CDK sets EDGE_URL from its custom domain or stage URL,
 * `npm start` from where it listens): never from a request's Host, which its sender chooses. Read on
 * first use, so only functions that build links need it.
 */
let base: string | undefined;

function edgeBase(): string {
  if (base === undefined) {
    const value = requireEnv('EDGE_URL');
    if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
      throw new Error(`Invalid configuration: EDGE_URL must be an absolute http(s) URL, got '${value}'`);
    }
    base = value.replace(/\/+$/, '');
  }
  return base;
}

export const updatePage: UpdatePageAddress = {
  linkFor: (token) => `${edgeBase()}/update/${token}`,
  get base() {
    return edgeBase();
  },
};
