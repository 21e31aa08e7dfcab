import { describe, expect, it } from 'vitest';
import { createProgress, formatElapsed } from '../../bench/progress.ts';

/** A reporter on a fake clock, writing into an array. */
function reporter(isTTY: boolean) {
  const written: string[] = [];
  let now = 0;
  const progress = createProgress({ isTTY, write: (text) => written.push(text) }, () => now, 10_000);
  return { progress, written, tick: (ms: number) => (now += ms) };
}

describe('bench progress', () => {
  it('writes plain lines off a terminal: the bench, a heartbeat at most every 10 s, each step with its count and time', () => {
    // Prepare
    const { progress, written, tick } = reporter(false);
    // Act
    progress.bench('lists', 2, 6);
    const seeding = progress.step('seeding 100,000 payments (items written)', 140_000);
    for (let batch = 0; batch < 5_600; batch++) {
      tick(5);
      seeding.advance(25);
    }
    seeding.done();
    tick(1_500);
    progress.benchDone();
    // Assess: 28 s of seeding gave two heartbeats, not one line per batch
    expect(written).toEqual([
      '[2/6] lists\n',
      '  seeding 100,000 payments (items written): 50,000/140,000 (35%), 10.0 s\n',
      '  seeding 100,000 payments (items written): 100,000/140,000 (71%), 20.0 s\n',
      '  seeding 100,000 payments (items written): 140,000 in 28.0 s\n',
      '[2/6] lists done in 29.5 s\n',
    ]);
  });

  it('updates one line in place on a terminal, at most every 100 ms, and ends it with the result', () => {
    // Prepare
    const { progress, written, tick } = reporter(true);
    // Act
    const step = progress.step('cold starts timed', 4);
    tick(50);
    step.advance(); // within 100 ms of the start: not redrawn
    tick(150);
    step.advance();
    tick(100);
    step.advance(2);
    step.done();
    // Assess
    expect(written).toEqual([
      '\r\u001b[2K  cold starts timed…',
      '\r\u001b[2K  cold starts timed: 2/4 (50%), 0.2 s',
      '\r\u001b[2K  cold starts timed: 4/4 (100%), 0.3 s',
      '\r\u001b[2K  cold starts timed: 4 in 0.3 s\n',
    ]);
  });

  it('times one piece of work without a count, and passes its result on', async () => {
    // Prepare
    const { progress, written, tick } = reporter(false);
    // Act
    const result = await progress.timed('seeding the fixture', async () => {
      tick(75_000);
      return 'fixture';
    });
    // Assess
    expect(result).toBe('fixture');
    expect(written).toEqual(['  seeding the fixture: 1 min 15 s\n']);
  });

  it('shows seconds to a tenth under a minute, minutes and seconds beyond', () => {
    expect(formatElapsed(0)).toBe('0.0 s');
    expect(formatElapsed(59_940)).toBe('59.9 s');
    expect(formatElapsed(60_000)).toBe('1 min 00 s');
    expect(formatElapsed(3_725_000)).toBe('62 min 05 s');
  });
});
