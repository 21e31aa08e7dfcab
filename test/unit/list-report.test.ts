import { describe, expect, it } from 'vitest';
import { KEPT_FAILURES, LIST_TARGETS, renderLists } from '../../bench/list-report.ts';

const result = (items: number, p99: number) => ({ total: 1, items_read: { median: items, max: items }, read_capacity_units: { median: 1 }, latency_ms: { median: p99 / 2, p99 } });
const size = (customers: number, cases: Record<string, ReturnType<typeof result>>) => ({ customers, payments: customers * 2, seed_seconds: 1, samples: 30, cases });

describe('list bench summary', () => {
  it('judges each case by the most items any request read and by p99 growth from the smallest size to the largest', () => {
    const lines = renderLists({
      sizes: {
        '1000': size(1000, { flat: result(36, 10), growing: result(40, 10) }),
        '100000': size(100_000, { flat: result(36, 14), growing: result(LIST_TARGETS.itemsRead + 1, 16) }),
      },
    });
    const flat = lines.find((line) => line.startsWith('| flat |'))!;
    const growing = lines.find((line) => line.startsWith('| growing |'))!;
    expect(flat).toBe('| flat | 36 (36) pass · 1 · 5 / 10 | 36 (36) pass · 1 · 7 / 14 | 1.40× pass |');
    expect(growing).toBe(`| growing | 40 (40) pass · 1 · 5 / 10 | ${LIST_TARGETS.itemsRead + 1} (${LIST_TARGETS.itemsRead + 1}) **FAIL** · 1 · 8 / 16 | 1.60× **FAIL** |`);
    expect(lines.join('\n')).toContain('p99 100,000 ÷ 1,000');
  });

  it('points a FAIL that a decision record keeps to that record', () => {
    const [kept, record] = Object.entries(KEPT_FAILURES)[0]!;
    const lines = renderLists({ sizes: { '10000': size(10_000, { [kept]: result(5036, 10), other: result(5036, 10) }) } });
    expect(lines.find((line) => line.startsWith(`| ${kept} |`))).toBe(`| ${kept} | 5036 (5036) **FAIL**, kept: docs/decisions.md "${record}" · 1 · 5 / 10 | – |`);
    expect(lines.find((line) => line.startsWith('| other |'))).toBe('| other | 5036 (5036) **FAIL** · 1 · 5 / 10 | – |');
  });

  it('judges no growth when one size was measured', () => {
    const lines = renderLists({ sizes: { '10000': size(10_000, { flat: result(36, 10) }) } });
    expect(lines.find((line) => line.startsWith('| flat |'))).toBe('| flat | 36 (36) pass · 1 · 5 / 10 | – |');
  });
});
