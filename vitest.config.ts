import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{core,store,pipeline,api,cli,test,bench}/**/*.test.ts", "packages/*/src/**/*.test.ts"],
    // Every response of an app created in a test is checked against its /openapi.json.
    setupFiles: ["test/support/api/contract/setup.ts"],
    // One id per run: the site build of the repository's data is made once per run and shared.
    globalSetup: ["test/global-setup.ts"],
    // Crash and end-to-end tests spawn real processes; keep them from fighting for 2 cores.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
