import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium: the browser the tests drive (never a downloaded one). */
export const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
// .ci/run installs it: under CI a missing browser fails the suite instead of skipping it.
if (!available && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: the browser tests cannot run in CI`);

/** A suite in a browser is skipped, saying why, where Chromium is not installed (outside CI). */
export const chromiumSkip = available ? false : `${CHROMIUM} is not installed`;

/** Chromium headless, offline in its own habits: no sync, component updates or background requests. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
