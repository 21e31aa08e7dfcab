/**
 * The one way browser tests get a browser, and what they check in it. Chromium is Debian's at
 * /usr/bin/chromium when installed, else the build shipped inside the `@sparticuz/chromium` npm package
 * (a devDependency), so `npm ci && npm test` needs no apt step; no browser is ever downloaded.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { spawnInGroup } from '../../bin/local/process-groups.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const DEBIAN_CHROMIUM = '/usr/bin/chromium';
/** Headless, and quiet on this network: no update checks, no sync, no QUIC probes, no first-run pages. */
const NETWORK_FLAGS = ['--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];
const DEBIAN_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', ...NETWORK_FLAGS];
/**
 * Flags in the package's list (made for scraping from Lambda) that do not suit tests: two change what
 * a page may do, while the tests check what browsers enforce (CORS); with one process, Chromium ends
 * when its last page closes, so a test file could open only one page.
 */
const LEFT_OUT_FLAGS = new Set(['--disable-web-security', '--allow-running-insecure-content', '--single-process']);
/** Written by the browser tests only on request, so ordinary runs leave the work tree clean. */
const SCREENSHOTS = join(ROOT, 'docs', 'screenshots');

function packageVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  return (createRequire(import.meta.url)(join(dirname(entry), '..', 'package.json')) as { version: string }).version;
}

/**
 * The package ships Chromium brotli-compressed and inflates it into the temp directory. Each caller
 * inflates into a directory of its own, in a child process whose TMPDIR points there (the package
 * reads TMPDIR), then renames it into place, so test files starting at once never launch a
 * half-written binary; the first rename wins and later runs reuse it.
 */
async function packagedChromium(): Promise<string> {
  const home = join(tmpdir(), `recovery-chromium-${packageVersion()}`);
  const executable = join(home, 'chromium');
  if (existsSync(executable)) return executable;
  const staging = mkdtempSync(`${home}-`);
  const inflate = spawnInGroup(
    process.execPath,
    ['--input-type=module', '-e', "const { default: chromium } = await import('@sparticuz/chromium'); await chromium.executablePath();"],
    { cwd: ROOT, env: { ...process.env, TMPDIR: staging }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  inflate.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => inflate.once('close', resolve));
  if (code !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`Inflating @sparticuz/chromium failed (exit ${code}): ${stderr.trim()}`);
  }
  try {
    renameSync(staging, home);
  } catch {
    rmSync(staging, { recursive: true, force: true }); // another test file's copy got there first
  }
  return executable;
}

/** Where the Chromium comes from, and how it is started. */
export async function chromiumLaunch(): Promise<{ executablePath: string; args: string[] }> {
  if (existsSync(DEBIAN_CHROMIUM)) return { executablePath: DEBIAN_CHROMIUM, args: DEBIAN_FLAGS };
  const { default: packaged } = await import('@sparticuz/chromium');
  return { executablePath: await packagedChromium(), args: [...packaged.args.filter((flag) => !LEFT_OUT_FLAGS.has(flag)), ...NETWORK_FLAGS] };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch(await chromiumLaunch());
}

export interface AccessibilityViolation {
  rule: string;
  impact: string;
  help: string;
  /** CSS selectors of the offending elements; `>>` steps into a shadow root. */
  targets: string[];
}

/**
 * axe-core's scan of the whole page as it is now (open shadow roots included), keeping the violations it
 * rates serious or critical: the ones that keep someone from completing the task.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  // Evaluated over the DevTools protocol, so a page's Content-Security-Policy does not block it.
  await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const results = await (globalThis as unknown as { axe: typeof axe }).axe.run('html', { resultTypes: ['violations'] });
    return results.violations.map((violation) => ({
      rule: violation.id,
      impact: violation.impact ?? 'unknown',
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.map((part) => (Array.isArray(part) ? part.join(' >> ') : String(part))).join(' >> ')),
    }));
  });
  return violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical');
}

/** Saves docs/screenshots/<name>.png when UPDATE_SCREENSHOTS=1 (e.g. after changing how a page looks). */
export async function updateScreenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), ...options });
}
