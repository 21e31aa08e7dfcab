/** A browser origin exactly as browsers send it: scheme://host[:port], nothing after. */
export function isWebOrigin(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== value) return false;
  // A host a page can be served from: an IPv6 literal, or DNS labels (no wildcard) of at most 253
  // characters, which also keeps the origin registry's key far under DynamoDB's 2 KB.
  const host = url.hostname;
  return host.startsWith('[') || (host.length <= 253 && host.split('.').every((label) => DNS_LABEL.test(label)));
}

const DNS_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
