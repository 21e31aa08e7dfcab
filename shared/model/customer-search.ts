/**
 * Customer search (§4.2 `query`): what a customer is found by, and what a query asks for. A customer is
 * found by the start of any word of their name and of their email: the local part, each of its dot-
 * or plus-separated parts, and the domain; case and accents do not matter. Words of a query must each
 * match (docs/decisions.md, "Customer search by word prefixes").
 *
 * The index keeps one entry per prefix of each indexed word (an "atom": letters and digits only), up
 * to PREFIX_LENGTH characters; a longer query word reads its first PREFIX_LENGTH characters' entries
 * and is tested against the customer's search text (`text`), which holds every whole word and email
 * part, each preceded by a space, so `contains(text, " " + word)` is "some word starts with it".
 * The whole email domain is one more key, `@<domain>`: a query word that is a whole domain reads
 * exactly that domain's customers, and a whole address reads the smaller of its local part's and its
 * domain's entries (docs/decisions.md, "A whole domain is one search key").
 */
export const PREFIX_LENGTH = 10;
/**
 * At most this many prefixes (index entries, each with a count) per customer; words past it (a
 * second middle name, a plus tag) are not indexed. A write may index fewer to fit its transaction
 * (store/customer-search.ts), and the customer's next write adds the rest.
 */
export const MAX_PREFIXES = 30;

/** Letters a decomposition does not reduce to ASCII. */
const FOLDED: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', ł: 'l', đ: 'd', ð: 'd', þ: 'th', ı: 'i' };

/** Lowercase, accents and other combining marks removed ("Édith" → "edith", "Straße" → "strasse"). */
export function normalise(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[ßæœøłđðþı]/g, (letter) => FOLDED[letter]!);
}

const atomsOf = (text: string): string[] => text.split(/[^\p{L}\p{N}]+/u).filter((atom) => atom.length > 0);
const unique = (values: readonly string[]): string[] => [...new Set(values)];

/** The key of every customer whose email is at this domain. */
export const domainKey = (domain: string): string => `@${domain}`;
/** Longest domain given its own key (longer ones are found by their words). */
const DOMAIN_KEY_LENGTH = 60;

export interface SearchIndexing {
  /** Every indexed prefix, each once. */
  prefixes: string[];
  /** Every word and email part, space-separated, with a space at both ends. */
  text: string;
}

/** What a customer with this name and email is found by, in at most `limit` prefixes. */
export function searchIndexing(name: string | null, email: string | null, limit = MAX_PREFIXES): SearchIndexing {
  const nameWords = normalise(name ?? '').split(/\s+/u).filter((word) => word.length > 0);
  const nameAtoms = atomsOf(nameWords.join(' '));
  const address = normalise(email ?? '').trim();
  const at = address.lastIndexOf('@');
  const local = at < 0 ? address : address.slice(0, at);
  const domain = at < 0 ? '' : address.slice(at + 1);
  const parts = local.split(/[.+]/).filter((part) => part.length > 0);
  // From each part on: "garcia+billing@example.com" is found by "garcia+bil" as well as "mj.garcia+bil".
  const tails = [...address.matchAll(/[.+]/g)].map((separator) => address.slice(separator.index + 1)).filter((tail) => !tail.startsWith('@') && tail.length > 0);
  // Priority when MAX_PREFIXES runs out: first and last name, the email's first word, its domain's name, its other words, other name words.
  const localAtoms = atomsOf(local);
  const atoms = unique([...nameAtoms.slice(0, 1), ...nameAtoms.slice(-1), ...localAtoms.slice(0, 1), ...atomsOf(domain).slice(0, 1), ...localAtoms, ...nameAtoms]);
  // The domain's own key first: one prefix, so it always fits and every customer of the domain has it.
  const prefixes = new Set<string>(domain.length > 0 && domain.length <= DOMAIN_KEY_LENGTH ? [domainKey(domain)] : []);
  for (const atom of atoms) {
    const own = Array.from({ length: Math.min(atom.length, PREFIX_LENGTH) }, (_, i) => atom.slice(0, i + 1)).filter((prefix) => !prefixes.has(prefix));
    // A word is indexed whole or not at all, so every query for it finds the customer or none does.
    if (prefixes.size + own.length > limit) continue;
    for (const prefix of own) prefixes.add(prefix);
  }
  const words = unique([...nameWords, ...nameAtoms, address, local, ...tails, ...parts, ...localAtoms, domain].filter((word) => word.length > 0));
  return { prefixes: [...prefixes], text: words.length === 0 ? '' : ` ${words.join(' ')} ` };
}

export interface QueryWord {
  /** The word as the search text is tested for (" " + word). */
  word: string;
  /** The prefix whose index entries hold every customer the word can match. */
  prefix: string;
  /** The prefix's entries are exactly the word's matches: no text test needed. */
  exact: boolean;
  /**
   * A domain key whose entries may be read instead, when the word names a domain: a whole domain
   * ("example.com", exact: its customers are the matches) or an address's ("ada@example.com", tested).
   */
  domain?: { key: string; exact: boolean };
}

/** Letters, digits, dots and hyphens with a dot inside: what a domain looks like. */
const DOMAIN_SHAPE = /^[\p{L}\p{N}-]+(\.[\p{L}\p{N}-]+)+$/u;

function domainOf(word: string): QueryWord['domain'] {
  const at = word.lastIndexOf('@');
  const domain = at < 0 ? word : word.slice(at + 1);
  if (!DOMAIN_SHAPE.test(domain) || domain.length > DOMAIN_KEY_LENGTH) return undefined;
  return { key: domainKey(domain), exact: at < 0 };
}

/**
 * A query's words, normalised like the index; a word with no letter or digit asks for nothing and is
 * left out. Punctuation before a word is dropped; inside or after it (`john.`, `ada@`) it narrows.
 */
export function queryWords(query: string): QueryWord[] {
  const words = unique(
    normalise(query)
      .split(/\s+/u)
      .map((word) => word.replace(/^[^\p{L}\p{N}]+/u, ''))
      .filter((word) => atomsOf(word).length > 0),
  );
  return words.map((word) => {
    const atom = atomsOf(word)[0]!;
    const exact = atom === word && word.length <= PREFIX_LENGTH;
    const domain = domainOf(word);
    return { word, prefix: atom.slice(0, PREFIX_LENGTH), exact, ...(domain ? { domain } : {}) };
  });
}
