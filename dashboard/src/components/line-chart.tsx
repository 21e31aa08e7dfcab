import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { utcDay } from '../format.ts';

export interface ChartSeries {
  label: string;
  values: number[];
  /** Drawn dashed: the comparison period, told apart by line style and legend, not by colour alone. */
  dashed?: boolean;
}

const COLOURS = ['#0a66c2', '#6e7781'];

/**
 * A line chart over UTC days (uPlot on a canvas), with the same numbers as a table for anyone who
 * cannot see the canvas. `data-points` states how many points each series drew.
 */
export function LineChart({ title, days, series, format }: { title: string; days: string[]; series: ChartSeries[]; format: (value: number) => string }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = holder.current;
    if (!element) return;
    const data: uPlot.AlignedData = [days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000), ...series.map((line) => line.values)];
    const width = () => Math.max(280, element.clientWidth);
    const chart = new uPlot(
      {
        width: width(),
        height: 220,
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        series: [
          { label: 'Day', value: (_chart, seconds) => (seconds == null ? '—' : utcDay(new Date(seconds * 1000).toISOString().slice(0, 10))) },
          ...series.map((line, index) => ({
            label: line.label,
            stroke: COLOURS[index % COLOURS.length],
            width: 2,
            dash: line.dashed ? [6, 4] : undefined,
            value: (_chart: uPlot, value: number | null) => (value == null ? '—' : format(value)),
          })),
        ],
        axes: [{}, { size: 70, values: (_chart, values) => values.map((value) => format(value)) }],
        scales: { y: { range: (_chart, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] } },
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: width(), height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [days.join(), JSON.stringify(series)]);
  return (
    <figure class="chart" data-points={days.length}>
      <figcaption>{title}</figcaption>
      <div ref={holder} class="chart-canvas" role="img" aria-label={`${title}: line chart of ${days.length} days; the numbers are in the table below`} />
      <details>
        <summary>{title} as a table</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              {series.map((line) => (
                <th scope="col">{line.label}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((day, index) => (
              <tr>
                <th scope="row">{utcDay(day)}</th>
                {series.map((line) => (
                  <td>{line.values[index] === undefined ? '—' : format(line.values[index]!)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
