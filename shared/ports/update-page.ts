/** Where the card-update page is reached: the edge API's public address (EDGE_URL), which personal links are built on. */
export interface UpdatePageAddress {
  /** `{edge_url}/update/{token}`. */
  linkFor(token: string): string;
  /** The edge API's base, for the processors' return addresses. */
  readonly base: string;
}
