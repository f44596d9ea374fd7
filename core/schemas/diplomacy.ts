/**
 * Diplomacy area (/diplomacy, cathedral DIPLOMACY; documents carry cycle C-156 in the published set).
 *
 * The spec names three JSON documents (treaty framework, international standards, diplomatic
 * protocols) but does not show their shapes. Decided here: each carries cycle, title and a version
 * string, and one list of strict items as described on each schema.
 */
import { z } from "zod";
import { Cycle, Identifier, IsoDate, NonEmptyString } from "./common.ts";

/**
 * /diplomacy/treaty-framework.json: the framework's principles and numbered articles, and the
 * parties that adopted it.
 */
export const TreatyFramework = z.strictObject({
  cycle: Cycle,
  title: NonEmptyString,
  version: NonEmptyString,
  /** Date the framework took effect. */
  effective_date: IsoDate,
  principles: z.array(
    z.strictObject({
      id: Identifier,
      title: NonEmptyString,
      text: NonEmptyString,
    }),
  ),
  articles: z.array(
    z.strictObject({
      /** Article number, from 1. */
      number: z.int().min(1),
      title: NonEmptyString,
      text: NonEmptyString,
    }),
  ),
  signatories: z.array(
    z.strictObject({
      party: NonEmptyString,
      signed_on: IsoDate,
    }),
  ),
});
export type TreatyFramework = z.infer<typeof TreatyFramework>;

/** How the platform stands with respect to an international standard. */
export const StandardAlignment = z.enum(["aligned", "partial", "planned", "not_applicable"]);
export type StandardAlignment = z.infer<typeof StandardAlignment>;

/**
 * /diplomacy/standards.json: international standards the platform maps itself to (e.g. ISO/IEC
 * 42001, NIST AI RMF), each with its issuer, the platform's alignment and a reference URL.
 */
export const InternationalStandards = z.strictObject({
  cycle: Cycle,
  title: NonEmptyString,
  version: NonEmptyString,
  standards: z.array(
    z.strictObject({
      id: Identifier,
      name: NonEmptyString,
      /** Issuing body (ISO/IEC, NIST, OECD, …). */
      issuer: NonEmptyString,
      alignment: StandardAlignment,
      /** How the platform meets it, or why not. */
      notes: z.string(),
      /** Reference URL; zod requires https, the JSON Schema checks format uri. */
      reference_url: z.url({ protocol: /^https$/ }),
    }),
  ),
});
export type InternationalStandards = z.infer<typeof InternationalStandards>;

/**
 * /diplomacy/protocols.json: diplomatic protocols, each an ordered list of steps with the
 * condition that triggers it and where it escalates.
 */
export const DiplomaticProtocols = z.strictObject({
  cycle: Cycle,
  title: NonEmptyString,
  version: NonEmptyString,
  protocols: z.array(
    z.strictObject({
      id: Identifier,
      name: NonEmptyString,
      /** The situation in which the protocol applies. */
      trigger: NonEmptyString,
      /** Ordered steps. */
      steps: z.array(NonEmptyString).min(1),
      /** Where the matter goes when the steps do not resolve it. */
      escalation: NonEmptyString,
    }),
  ),
});
export type DiplomaticProtocols = z.infer<typeof DiplomaticProtocols>;
