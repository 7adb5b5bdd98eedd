// Headless Chromium for the console's browser tests: Debian's `chromium` package (installed by
// scripts/install-chromium.sh, which .ci/run calls), driven by playwright-core. Nothing is downloaded.
// Where no Chromium can be found the browser tests say so and are skipped, never passed.
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export const chromiumPath: string | undefined = CANDIDATES.find((candidate): candidate is string => Boolean(candidate && existsSync(candidate)));

export const chromiumMissing = chromiumPath
  ? undefined
  : 'No Chromium found (/usr/bin/chromium, or CHROMIUM_PATH): the console browser tests are SKIPPED. Install it with scripts/install-chromium.sh (Debian: apt-get install chromium).';

export async function launchChromium(): Promise<Browser> {
  // --no-sandbox: these machines run the tests as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: chromiumPath!, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}
