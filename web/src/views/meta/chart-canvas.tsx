/**
 * A Chart.js chart on a canvas with an accessible name (role="img"); the numbers are also in a table
 * next to it. Only the pieces the meta charts use are registered, to keep this lazy chunk small.
 * The canvas carries the chart's labels and series in `data-series`, read back from the Chart.js
 * instance, so a test can compare what was drawn with the API's numbers.
 */
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip, type ChartConfiguration } from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LineController, LineElement, PointElement, Tooltip, Legend);

/** Series colours: each at least 3:1 against white, as non-text graphics need. */
export const SERIES_COLOURS = ['#1d4ed8', '#b91c1c', '#047857', '#7c3aed', '#b45309', '#0e7490', '#be185d', '#4d7c0f'];

export function ChartCanvas({ config, label, testId, tall }: { config: ChartConfiguration; label: string; testId: string; tall?: boolean }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const reduceMotion = matchMedia('(prefers-reduced-motion: reduce)').matches;
    const chart = new Chart(canvas.current!, {
      ...config,
      options: { responsive: true, maintainAspectRatio: false, animation: reduceMotion ? false : { duration: 250 }, ...config.options },
    });
    canvas.current!.dataset.series = JSON.stringify({
      labels: chart.data.labels,
      datasets: chart.data.datasets.map((dataset) => ({ label: dataset.label, data: dataset.data })),
    });
    return () => chart.destroy();
  }, [config]);
  return (
    <div class={tall ? 'chart-box chart-tall' : 'chart-box'}>
      <canvas ref={canvas} role="img" aria-label={label} data-testid={testId} />
    </div>
  );
}
