// @ts-check
/**
 * What a verification answers: its checks in order, each passed, failed (with a code) or skipped,
 * and the verdict. The CLI prints it; the /verify page lists it.
 */
import { exitCodeOf, VerifyError } from "./errors.js";

/**
 * @typedef {"key" | "manifest" | "signature" | "file" | "history" | "checkpoint" | "since" | "consistency" | "entry" | "tiles" | "inclusion"} Step
 * @typedef {object} Check
 * @property {Step} step
 * @property {string} subject the file (URL or path) or thing checked
 * @property {"passed" | "failed" | "skipped"} status
 * @property {import("./errors.js").VerifyErrorCode} [code] set when failed
 * @property {string} detail
 */

export class Report {
  /** @param {string} what what is verified, e.g. "academics" or "ledger entry 7" */
  constructor(what) {
    this.what = what;
    /** @type {Check[]} */
    this.checks = [];
  }

  /**
   * @param {Step} step
   * @param {string} subject
   * @param {string} detail
   */
  pass(step, subject, detail) {
    this.checks.push({ step, subject, status: "passed", detail });
  }

  /**
   * @param {Step} step
   * @param {string} subject
   * @param {string} detail
   */
  skip(step, subject, detail) {
    this.checks.push({ step, subject, status: "skipped", detail });
  }

  /**
   * Records a failure; a VerifyError's code is kept, anything else is rethrown (a bug, not a verdict).
   * @param {Step} step
   * @param {string} subject
   * @param {unknown} error
   */
  fail(step, subject, error) {
    if (!(error instanceof VerifyError)) throw error;
    this.checks.push({ step, subject, status: "failed", code: error.code, detail: error.message });
  }

  get failures() {
    return this.checks.filter((c) => c.status === "failed");
  }

  get ok() {
    return this.failures.length === 0 && this.checks.length > 0;
  }

  /** 0 verified, 1 a check failed, 2 a check could not run. @returns {0 | 1 | 2} */
  get exitCode() {
    const failures = this.failures;
    if (failures.length === 0) return 0;
    return failures.some((c) => c.code && exitCodeOf(c.code) === 2) ? 2 : 1;
  }
}
