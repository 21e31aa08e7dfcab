import { vi } from 'vitest';

/**
 * The log lines written to one stream from now until the mocks are restored: shared/log.ts writes
 * straight to stdout (errors to stderr), one JSON object per line.
 */
export function captureLogLines(stream: 'stdout' | 'stderr'): string[] {
  const lines: string[] = [];
  vi.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(...String(chunk).split('\n').filter((line) => line !== ''));
    return true;
  });
  return lines;
}
