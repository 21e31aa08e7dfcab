import type { CardNetwork, Initiator } from '../../shared/model/card-ledger.ts';
import { rulesInForce } from '../../shared/domain/declines/network-rules.ts';

/** One authorization on a card as the network saw it: ours (a retry) or one the processor reported. */
export interface Authorization {
  at: number;
  ours: boolean;
  initiator: Initiator;
  expiry: string;
  declineCode: string | null;
  adviceCode: string | null;
}

/**
 * The rule of the table an attempt of ours at `at` would break, read straight from the card's raw
 * history (exact rolling windows, every answer's code): an independent check of the guard, for the
 * property test and the bench.
 */
export function ruleBroken(history: readonly Authorization[], network: CardNetwork, expiry: string, at: number): string | undefined {
  for (const rule of rulesInForce(network, new Date(at))) {
    const { when, effect } = rule;
    if (effect.kind === 'limit') {
      const inWindow = history.filter(
        (auth) =>
          auth.at > at - effect.windowHours * 3_600_000 &&
          (effect.counter === 'attempts' || (auth.ours && (effect.counter === 'merchant_reattempts') === (auth.initiator === 'merchant'))),
      );
      if (inWindow.length + 1 > effect.max) return rule.id;
      continue;
    }
    if (when === 'every_attempt') continue;
    for (const auth of history) {
      const code = 'declineCodes' in when ? auth.declineCode : auth.adviceCode;
      const codes: readonly string[] = 'declineCodes' in when ? when.declineCodes : when.adviceCodes;
      if (code === null || !codes.includes(code)) continue;
      if (effect.kind === 'never' && auth.expiry === expiry) return rule.id;
      if (effect.kind === 'not_before' && at < auth.at + effect.hours * 3_600_000) return rule.id;
    }
  }
  return undefined;
}
