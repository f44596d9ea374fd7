/** What a run reports: each step's outcome, what was written or differs, and whether the ledger was read. */
import type { StepState } from "./plan.ts";

/** "blocked": the step succeeded but its area was not written because another of its steps failed. */
export type StepStatus = "written" | "unchanged" | "failed" | "blocked" | "differs" | "matches";

export interface StepReport {
  id: string;
  file: string;
  status: StepStatus;
  reason?: string;
}

export interface RunReport {
  ok: boolean;
  steps: StepReport[];
  /** Manifests and signatures written, orphans removed (normal mode). */
  written: string[];
  /** --check: files that differ, are missing or stale, and signatures that do not verify. */
  differences: string[];
  /** Entries read from the ledger (0 when it was not read). */
  ledgerEntries: number;
  ledgerRead: boolean;
}

/** The report as the last phase fills it, with the counts of its closing line. */
export class Tally {
  readonly report: RunReport;
  /** Written (or, under --check, differing), unchanged (matching) and failed steps. */
  changed = 0;
  unchanged = 0;
  failed = 0;
  readonly #log: (line: string) => void;

  constructor(log: (line: string) => void, pass: { read: number; ran: boolean }) {
    this.#log = log;
    this.report = { ok: true, steps: [], written: [], differences: [], ledgerEntries: pass.read, ledgerRead: pass.ran };
  }

  step(state: StepState, status: StepStatus, line: string): void {
    this.#log(`${state.step.id} … ${line}`);
    this.report.steps.push({ id: state.step.id, file: state.target, status });
    if (status === "written" || status === "differs") this.changed += 1;
    else this.unchanged += 1;
  }

  /** Nothing of an area is written: its failed steps say why, the others are blocked by them. */
  areaFailed(states: readonly StepState[], reason: string): void {
    for (const s of states) {
      if (s.phase === "failed") {
        this.failed += 1;
        this.#log(`${s.step.id} … FAILED: ${s.reason}`);
        this.report.steps.push({ id: s.step.id, file: s.target, status: "failed", reason: s.reason! });
      } else {
        this.#log(`${s.step.id} … not written (${reason})`);
        this.report.steps.push({ id: s.step.id, file: s.target, status: "blocked", reason });
      }
    }
    this.report.ok = false;
  }

  close(): RunReport {
    if (this.failed > 0) this.report.ok = false;
    return this.report;
  }
}
