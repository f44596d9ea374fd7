#!/usr/bin/env node
// @ts-check
// integrity-monitor: see src/monitor.js (usage) and docs/witnesses.md in the Integrity Platform repository.
import { monitorMain } from "../src/monitor.js";

process.exitCode = await monitorMain(process.argv.slice(2));
