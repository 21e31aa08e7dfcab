import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PREFIXES, normalise, PREFIX_LENGTH, queryWords, searchIndexing } from '../../shared/model/customer-search.ts';

/** Whether the index would put a customer in the partition a query word reads, and its text test passes. */
function finds(name: string | null, email: string | null, query: string): boolean {
  const { prefixes, text } = searchIndexing(name, email);
  return queryWords(query).every(
    (word) => (word.domain?.exact === true && prefixes.includes(word.domain.key)) || (prefixes.includes(word.prefix) && (word.exact || text.includes(` ${word.word}`))),
  );
}

describe('customer search terms', () => {
  it('folds case and accents, and letters that do not decompose', () => {
    expect(normalise('Édith PIAF')).toBe('edith piaf');
    expect(normalise('Straße Øre Łódź')).toBe('strasse ore lodz');
    expect(normalise('İstanbul')).toBe('istanbul');
  });

  it('finds a customer by the start of each name word, the email, its parts and its domain', () => {
    const name = 'José García';
    const email = 'JG.Garcia+billing@Example.co.uk';
    for (const query of ['JOSÉ', 'garc', 'jg', 'jg.garcia', 'garcia+bil', 'bil', 'example', 'example.co.uk', 'jg.garcia+billing@example.co.uk', 'garcía josé', 'j g']) {
      expect(finds(name, email, query), query).toBe(true);
    }
    for (const query of ['ose', 'co.uk', 'uk', 'jose lopez', 'jg.garcia@other']) {
      expect(finds(name, email, query), query).toBe(false);
    }
  });

  it('leaves out the least telling words of a customer with more than MAX_PREFIXES prefixes', () => {
    const name = 'Maria Angeles Fernandez';
    const email = 'mafernandez+invoices@example.com';
    for (const query of ['maria', 'fernandez', 'mafern', 'example']) expect(finds(name, email, query), query).toBe(true);
    expect(finds(name, email, 'angeles')).toBe(false);
  });

  it('gives the whole domain one key, read for a query word that is a whole domain or an address', () => {
    expect(searchIndexing('Ada', 'ada@Example.COM').prefixes).toContain('@example.com');
    expect(queryWords('Example.com')).toEqual([{ word: 'example.com', prefix: 'example', exact: false, domain: { key: '@example.com', exact: true } }]);
    expect(queryWords('ada@example.com')[0]!.domain).toEqual({ key: '@example.com', exact: false });
    expect(queryWords('example.')[0]!.domain).toBeUndefined();
    expect(finds('Ada', 'ada@example.co.uk', 'example.co.uk')).toBe(true);
    // A long name and email use up the prefixes, and the domain's key is still there.
    expect(searchIndexing('Maximilian Oberhausenberger', 'maximilian.oberhausenberger@verylongdomainname.example').prefixes).toContain('@verylongdomainname.example');
  });

  it('keeps a customer without a name or an email findable by what they have', () => {
    expect(finds(null, 'someone@example.org', 'someone@')).toBe(true);
    expect(finds('Linus', null, 'lin')).toBe(true);
    expect(searchIndexing(null, null)).toEqual({ prefixes: [], text: '' });
  });

  it('reads a long word from its first PREFIX_LENGTH letters and tests the rest', () => {
    const [word] = queryWords('Christopherson');
    expect(word).toEqual({ word: 'christopherson', prefix: 'christopherson'.slice(0, PREFIX_LENGTH), exact: false });
    expect(finds('Christopherson Smith', null, 'christopherson')).toBe(true);
    expect(finds('Christopherton Smith', null, 'christopherson')).toBe(false);
  });

  it('treats a word without letters or digits as no word, and punctuation before a word as nothing', () => {
    expect(queryWords(' ... @ ')).toEqual([]);
    expect(queryWords('"ada')).toEqual([{ word: 'ada', prefix: 'ada', exact: true }]);
    expect(queryWords('ada.')).toEqual([{ word: 'ada.', prefix: 'ada', exact: false }]);
  });

  it('indexes at most MAX_PREFIXES prefixes, every word whole or not at all, and finds every prefix of an indexed word', () => {
    const word = fc.stringMatching(/^[a-zàáâäçèéêëìíîïñòóôöùúûüý]{1,14}$/);
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 6 }), fc.tuple(word, word), (names, [local, domain]) => {
        const name = names.join(' ');
        const { prefixes } = searchIndexing(name, `${local}@${domain}.com`);
        expect(prefixes.length).toBeLessThanOrEqual(MAX_PREFIXES);
        expect(new Set(prefixes).size).toBe(prefixes.length);
        for (const atom of [...names, local].map(normalise)) {
          const indexed = prefixes.includes(atom.slice(0, PREFIX_LENGTH));
          for (let length = 1; length <= atom.length; length++) {
            if (indexed) expect(finds(name, `${local}@${domain}.com`, atom.slice(0, length))).toBe(true);
          }
        }
        // The first name word always fits.
        expect(finds(name, null, normalise(names[0]!))).toBe(true);
      }),
    );
  });
});
