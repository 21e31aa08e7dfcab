import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import chromium from '@sparticuz/chromium';
import type { AxeResults, Result } from 'axe-core';
import { chromium as playwright, type Browser, type Page } from 'playwright-core';

/**
 * The browser tests' Chromium: Debian's when installed, otherwise the build shipped inside the
 * `@sparticuz/chromium` npm package (unpacked to /tmp on first use), so `npm test` needs no apt step
 * and downloads nothing.
 */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export async function launchBrowser(): Promise<Browser> {
  const executablePath = existsSync(DEBIAN_CHROMIUM) ? DEBIAN_CHROMIUM : await chromium.executablePath();
  return playwright.launch({ executablePath, args: [...new Set([...FLAGS, ...chromium.args])] });
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SERIOUS = new Set(['serious', 'critical']);

/**
 * axe-core run in the page as it is now: the violations a person would be blocked by (serious or
 * critical). Evaluated through the DevTools protocol, so a page's strict CSP does not block it.
 */
export async function seriousViolations(page: Page): Promise<Result[]> {
  await page.evaluate(AXE_SOURCE);
  // Runs in the page, where axe is the script just added.
  const results = await page.evaluate(() => {
    const inPage = globalThis as unknown as { axe: { run: (context: unknown) => Promise<AxeResults> }; document: unknown };
    return inPage.axe.run(inPage.document);
  });
  return results.violations.filter((violation) => SERIOUS.has(violation.impact ?? ''));
}
