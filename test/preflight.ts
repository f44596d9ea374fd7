/**
 * What `npm test` needs beyond npm, checked before the suite runs: Debian's Chromium (browser tests),
 * nginx (the static build served as a CDN would serve it), PostgreSQL (the ledger on a shared store:
 * test/support/postgres.ts starts a throwaway cluster) and HAProxy (N API instances behind a real
 * load balancer). The conformance vectors travel with
 * the repository (vendor/vectors/), so nothing else is needed. Missing system packages are installed with apt-get when
 * this runs as root on Debian, as `.ci/run` does; otherwise it stops with one line naming what to
 * install, so a browser test is never skipped silently.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";

/** Debian's server binaries live under a versioned folder: /usr/lib/postgresql/15/bin/pg_ctl. */
function postgresInstalled(): boolean {
  const root = "/usr/lib/postgresql";
  return existsSync(root) && readdirSync(root).some((version) => existsSync(`${root}/${version}/bin/pg_ctl`));
}

const PACKAGES: { binary: string; installed?: () => boolean; pkg: string; why: string }[] = [
  { binary: "/usr/bin/chromium", pkg: "chromium", why: "browser tests" },
  { binary: "/usr/sbin/nginx", pkg: "nginx", why: "the static build served by a real web server" },
  {
    binary: "/usr/lib/postgresql/*/bin/pg_ctl",
    installed: postgresInstalled,
    pkg: "postgresql",
    why: "the ledger on PostgreSQL",
  },
  { binary: "/usr/sbin/haproxy", pkg: "haproxy", why: "API instances behind a load balancer" },
];

const present = (p: (typeof PACKAGES)[number]) => (p.installed ? p.installed() : existsSync(p.binary));

function stop(line: string): never {
  console.error(`npm test: ${line}`);
  process.exit(1);
}

function run(command: string, args: string[]): boolean {
  const result = spawnSync(command, args, {
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  return result.status === 0;
}

const missing = PACKAGES.filter((p) => !present(p));
if (missing.length > 0) {
  const names = missing.map((p) => p.pkg).join(" ");
  const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
  if (!canInstall)
    stop(
      `missing ${missing.map((p) => `${p.binary} (${p.why})`).join(", ")}: install with sudo apt-get install ${names}`,
    );
  console.log(`npm test: installing ${names} with apt-get …`);
  if (
    !run("apt-get", ["update", "-qq"]) ||
    !run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing.map((p) => p.pkg)])
  ) {
    stop(`apt-get could not install ${names}; install them by hand: apt-get install ${names}`);
  }
  const still = missing.filter((p) => !present(p));
  if (still.length > 0) stop(`apt-get ran but ${still.map((p) => p.binary).join(", ")} is still missing`);
}
