#!/usr/bin/env node
// @ts-check
// integrity-verify: see src/cli.js (usage) and docs/verify-downloads.md in the Integrity Platform repository.
import { main } from "../src/cli.js";

process.exitCode = await main(process.argv.slice(2));
