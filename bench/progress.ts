/**
 * What `npm run bench` is doing while it works (seeding 100,000 payments, timing hundreds of cold
 * starts takes minutes): a line per bench and per step, with counts and the time taken. On a terminal
 * the running step's line updates in place; elsewhere (CI, a file) a step prints a line when it ends
 * and, while it runs, at most one every `heartbeatMs`, so a log shows it is alive without flooding.
 * Written to stderr: stdout keeps the summary alone.
 */

export interface ProgressOutput {
  write(text: string): void;
  isTTY?: boolean;
}

export interface Step {
  /** `count` more units done. */
  advance(count?: number): void;
  /** Ends the step: its line with the units done and the time taken. */
  done(): void;
}

export interface Progress {
  /** Starts bench `index` of `of`; the steps until the next call belong to it. */
  bench(name: string, index: number, of: number): void;
  /** Ends the current bench with the time it took. */
  benchDone(): void;
  /** A step of `total` units (omitted when not known beforehand). */
  step(label: string, total?: number): Step;
  /** One piece of work as a step: its line says how long it took. */
  timed<T>(label: string, work: () => Promise<T>): Promise<T>;
}

const REDRAW_MS = 100;
const CLEAR_LINE = '\r\u001b[2K';

export function formatElapsed(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

const count = (n: number) => n.toLocaleString('en-US');

function running(label: string, done: number, total: number | undefined, elapsedMs: number): string {
  const counted = total === undefined ? count(done) : `${count(done)}/${count(total)} (${Math.floor((done / Math.max(1, total)) * 100)}%)`;
  return `  ${label}: ${counted}, ${formatElapsed(elapsedMs)}`;
}

export function createProgress(output: ProgressOutput, clock: () => number = () => performance.now(), heartbeatMs = 10_000): Progress {
  let current: { name: string; index: number; of: number; started: number } | undefined;
  const progress: Progress = {
    bench(name, index, of) {
      current = { name, index, of, started: clock() };
      output.write(`[${index}/${of}] ${name}\n`);
    },
    benchDone() {
      if (!current) return;
      output.write(`[${current.index}/${current.of}] ${current.name} done in ${formatElapsed(clock() - current.started)}\n`);
      current = undefined;
    },
    step(label, total) {
      const started = clock();
      let done = 0;
      let shown = started;
      if (output.isTTY) output.write(`${CLEAR_LINE}  ${label}…`);
      return {
        advance(units = 1) {
          done += units;
          const now = clock();
          if (output.isTTY && now - shown >= REDRAW_MS) {
            output.write(`${CLEAR_LINE}${running(label, done, total, now - started)}`);
            shown = now;
          } else if (!output.isTTY && now - shown >= heartbeatMs) {
            output.write(`${running(label, done, total, now - started)}\n`);
            shown = now;
          }
        },
        done() {
          const counted = total === undefined && done === 0 ? '' : `${count(done)} in `;
          const line = `  ${label}: ${counted}${formatElapsed(clock() - started)}\n`;
          output.write(output.isTTY ? `${CLEAR_LINE}${line}` : line);
        },
      };
    },
    async timed(label, work) {
      const step = progress.step(label);
      const result = await work();
      step.done();
      return result;
    },
  };
  return progress;
}

/** The bench run's reporter, on stderr. */
export const progress = createProgress(process.stderr);
