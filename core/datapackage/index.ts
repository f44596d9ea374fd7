/**
 * The published-data contract (one module for the pipeline, the offline verifier, the site and the
 * API): areas, files and access tiers (contract.ts), path rules (paths.ts), the manifest schema
 * (manifest.ts) and the manifest signature (signature.ts). Pure: no I/O, no clock.
 */
export * from "./contract.ts";
export * from "./errors.ts";
export * from "./manifest.ts";
export * from "./paths.ts";
export * from "./references.ts";
export * from "./signature.ts";
