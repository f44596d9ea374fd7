/**
 * What the ledger-backed routes share, assembled once by createApp (api/app.ts): the ledger they
 * read and append to, the token key's public half their write routes check tokens with, and the
 * injected clock. Without a ledger or a token key there is no platform, and those routes fail
 * closed (503 `ledger-unavailable`, writes 401).
 */
import type { LedgerStore } from "../../core/ledger/store.ts";

export interface Platform {
  ledger: LedgerStore;
  /** The token key's public half (store/keys.ts TOKEN_KEY), hex. */
  tokenPublicKeyHex: string;
  now: () => Date;
}

/** The platform of an app's options; undefined unless both the ledger and the token key are given. */
export function assemblePlatform(options: {
  ledger?: LedgerStore | undefined;
  tokenPublicKeyHex?: string | undefined;
  now: () => Date;
}): Platform | undefined {
  const { ledger, tokenPublicKeyHex, now } = options;
  return ledger && tokenPublicKeyHex ? { ledger, tokenPublicKeyHex, now } : undefined;
}
