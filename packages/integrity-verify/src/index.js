// @ts-check
/**
 * integrity-verify: check a download of the Integrity Platform without a clone — an area's signed
 * manifest and every file's size and SHA-256, or a ledger entry's inclusion in the signed checkpoint
 * from its C2SP tiles. WebCrypto only: the same code runs in Node >= 20 (the CLI) and in a browser
 * (the portal's /verify page). The folder source (Node only) is `integrity-verify/folder`.
 */
export { verifyArea, DATASET_KEY_PATHS, MANIFEST_FILE, SIGNATURE_FILE, PACKAGE_NAMES } from "./area.js";
export { verifyLedgerEntry, parseCheckpoint, CHECKPOINT_FILE, LEDGER_KEY_PATHS } from "./ledger.js";
export { pinnedKeys, publishedKeys, trustStatement } from "./keys.js";
export { urlSource, memorySource } from "./source.js";
export {
  TileReader,
  tilePath,
  tileIndexPath,
  verifyInclusion,
  verifyConsistency,
  leafHash,
  ENVELOPES_DIR,
} from "./tiles.js";
export { Report } from "./report.js";
export { VerifyError, exitCodeOf } from "./errors.js";
