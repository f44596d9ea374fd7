/** The diplomacy area (/diplomacy, cathedral DIPLOMACY): three curated JSON documents. */
import type { Step } from "../../step.ts";
import { protocolsStep, standardsStep, treatyFrameworkStep } from "./documents.ts";

export const steps: Step[] = [treatyFrameworkStep, standardsStep, protocolsStep];
