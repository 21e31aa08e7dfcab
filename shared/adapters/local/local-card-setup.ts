import { CardSetupFailed, type CardSetup } from '../../ports/card-setup.ts';

/**
 * The local server never reaches a processor, so a live-mode card update there cannot start: the page
 * says the processor is unavailable and whom to ask, as it would during an outage. Test mode never
 * comes here (the sandbox's own form takes the card).
 */
const unreachable = (): never => {
  throw new CardSetupFailed('The local server reaches no processor: live card updates need a deployment', false);
};

export const localCardSetup: CardSetup = { start: async () => unreachable(), complete: async () => unreachable() };
