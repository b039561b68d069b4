// Unpacks the Chromium that @sparticuz/chromium ships in its npm package, once, before the e2e
// files run in parallel (so two workers never unpack into the same folder at once), and hands
// its path and flags to the workers through the environment. The package is ESM with
// import.meta, which jest's CommonJS test sandbox cannot load on Node 20; this file runs natively.
module.exports = async function globalSetup() {
  if (process.env.CHROMIUM_PATH || process.env.E2E_CHROMIUM_EXECUTABLE) return;
  // Its bundled font setup has no CJK fonts; the system's (CI installs fonts-noto-cjk) has.
  if (!process.env.FONTCONFIG_PATH && require('node:fs').existsSync('/etc/fonts/fonts.conf')) process.env.FONTCONFIG_PATH = '/etc/fonts';
  const { default: packaged } = await import('@sparticuz/chromium');
  process.env.E2E_CHROMIUM_EXECUTABLE = await packaged.executablePath();
  process.env.E2E_CHROMIUM_ARGS = JSON.stringify(packaged.args);
};
