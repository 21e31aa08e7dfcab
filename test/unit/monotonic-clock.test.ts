import { describe, expect, it } from 'vitest';
import { monotonicMs } from '../../shared/ports/clock.ts';

describe('monotonicMs', () => {
  it('measures elapsed real time in milliseconds and never goes back', async () => {
    // Prepare
    const readings = [monotonicMs()];
    // Act
    await new Promise((resolve) => setTimeout(resolve, 25));
    readings.push(monotonicMs());
    for (let i = 0; i < 1000; i++) readings.push(monotonicMs());
    // Assess
    expect(readings[1]! - readings[0]!).toBeGreaterThanOrEqual(24);
    expect(readings[1]! - readings[0]!).toBeLessThan(1000);
    expect(readings.every((reading, i) => i === 0 || reading >= readings[i - 1]!)).toBe(true);
  });
});
