import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/**
 * Test helper: Debian's Chromium (or CHROMIUM_PATH) driven by playwright-core, headless, for the dashboard's
 * browser tests; and the folder their screenshots go to (test-output/dashboard, gitignored).
 */
export const SCREENSHOTS = join(process.cwd(), 'test-output', 'dashboard');

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-quic',
];

/** Launch Chromium, or throw saying how to get it; makes the screenshots folder. */
export async function launchChromium(): Promise<Browser> {
  const path = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));
  if (!path) throw new Error('Chromium not found: run scripts/ensure-chromium.sh or set CHROMIUM_PATH');
  mkdirSync(SCREENSHOTS, { recursive: true });
  return chromium.launch({ executablePath: path, args: ARGS, headless: true });
}
