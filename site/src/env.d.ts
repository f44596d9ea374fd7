/// <reference types="astro/client" />

/** Absolute path of the data directory, fixed by astro.config.mjs when the build starts. */
declare module "virtual:integrity/data-dir" {
  const dataDir: string;
  export default dataDir;
}
