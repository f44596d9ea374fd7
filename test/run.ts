/**
 * `npm test` after the preflight: the type check, the import rules and the formatter's check run beside `vitest run`
 * instead of before it, so the first test files do not wait for them (they mostly use the time the
 * first files spend waiting for the shared site build). Each check's output is printed, under its
 * name, when it ends; any failure fails the run. Arguments are handed to vitest.
 */
import { spawn } from "node:child_process";
import { useCompileCache } from "./support/compile-cache.ts";

interface Step {
  name: string;
  command: string[];
  /** Output shown as it comes (the test files), or kept and printed when the step ends. */
  live: boolean;
}

const STEPS: Step[] = [
  { name: "typecheck", command: ["npm", "run", "-s", "typecheck"], live: false },
  { name: "lint:imports", command: ["npm", "run", "-s", "lint:imports"], live: false },
  { name: "format", command: ["npm", "run", "-s", "format:check"], live: false },
  { name: "vitest", command: ["npx", "vitest", "run", ...process.argv.slice(2)], live: true },
];

useCompileCache();

function run(step: Step): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(step.command[0]!, step.command.slice(1), {
      stdio: step.live ? "inherit" : ["ignore", "pipe", "pipe"],
    });
    const output: Buffer[] = [];
    child.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk));
    let ended = false;
    const end = (status: number) => {
      if (ended) return;
      ended = true;
      if (!step.live) {
        const text = Buffer.concat(output).toString("utf8").trimEnd();
        process.stdout.write(
          `\nnpm test: ${step.name} ${status === 0 ? "passed" : `FAILED (exit ${status})`}\n${text ? `${text}\n` : ""}`,
        );
      }
      resolve(status);
    };
    child.on("error", (error) => {
      output.push(Buffer.from(`${error.message}\n`));
      end(1);
    });
    child.on("close", (code: number | null) => end(code ?? 1));
  });
}

const codes = await Promise.all(STEPS.map(run));
const failed = STEPS.filter((_, i) => codes[i] !== 0).map((s) => s.name);
if (failed.length > 0) {
  console.error(`npm test: failed: ${failed.join(", ")}`);
  process.exit(1);
}
