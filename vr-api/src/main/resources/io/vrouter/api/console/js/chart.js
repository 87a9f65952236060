// Live line charts on uPlot (from its WebJar, served by the server itself), loaded on the first
// page that draws one, so that the list does not wait for it.
import { h } from './ui.js';

const COLOURS = ['#2563eb', '#16a34a', '#d97706', '#9333ea', '#dc2626', '#0891b2', '#db2777', '#65a30d'];
const KEEP = 120;
let library = null;

function loadLibrary() {
  if (!library) {
    library = new Promise((resolve, reject) => {
      document.head.append(h('link', { rel: 'stylesheet', href: 'lib/uPlot.min.css' }));
      const script = h('script', { src: 'lib/uPlot.iife.min.js' });
      script.addEventListener('load', () => resolve(window.uPlot));
      script.addEventListener('error', () => reject(new Error('the chart library did not load')));
      document.head.append(script);
    });
  }
  return library;
}

/**
 * A chart of the last {@link KEEP} samples of a few series. The canvas is hidden from screen readers;
 * the figure is named by its caption, and its legend says the latest values in text.
 */
export class LiveChart {
  constructor(host, { title, format }) {
    this.format = format;
    this.labels = [];
    this.times = [];
    this.values = [];
    this.plot = null;
    this.latest = h('p.chart-latest', {}, 'Sampling every few seconds…');
    this.canvas = h('div.chart-canvas', { 'aria-hidden': 'true' });
    this.figure = h('figure.chart', {}, h('figcaption', {}, title), this.latest, this.canvas);
    host.append(this.figure);
    this.resize = new ResizeObserver(() => this.plot && this.plot.setSize(this.size()));
    this.resize.observe(this.canvas);
  }

  size() {
    return { width: Math.max(200, this.canvas.clientWidth), height: 170 };
  }

  /** Adds a sample: t in seconds, values by series label (series may come and go). */
  async push(t, byLabel) {
    const labels = Object.keys(byLabel);
    if (labels.join('\n') !== this.labels.join('\n')) {
      this.labels = labels;
      this.times = [];
      this.values = labels.map(() => []);
      if (this.plot) this.plot.destroy();
      this.plot = null;
    }
    this.times.push(t);
    labels.forEach((l, i) => this.values[i].push(byLabel[l]));
    if (this.times.length > KEEP) {
      this.times.shift();
      for (const v of this.values) v.shift();
    }
    // The legend: a colour swatch and the latest value per series.
    this.latest.replaceChildren(...labels.map((l, i) => {
      const swatch = h('span.swatch', { 'aria-hidden': 'true' });
      swatch.style.background = COLOURS[i % COLOURS.length]; // CSSOM, which the CSP allows (no style attribute)
      return h('span.series', {}, swatch, `${l} `, h('b', {}, this.format(byLabel[l])));
    }));
    this.canvas.hidden = false;
    this.figure.dataset.samples = this.times.length;
    const uPlot = await loadLibrary();
    if (!this.plot) {
      const clock = (t) => new Date(t * 1000).toLocaleTimeString('en-GB');
      // Of one sample uPlot would make a range of a thousand days (ticks on new years' midnights): the minute before it.
      const timeRange = (u, min, max) => (u.data[0].length === 1 ? [u.data[0][0] - 60, u.data[0][0]] : [min, max]);
      // The time axis's labels, as drawn on the canvas, for the browser tests to read.
      const timeLabels = (u, ticks) => {
        const labels = ticks.map(clock);
        this.figure.dataset.timeAxis = labels.join(' ');
        return labels;
      };
      this.plot = new uPlot({
        ...this.size(),
        legend: { show: false },
        padding: [8, 28, 0, 0],
        cursor: { drag: { x: false, y: false } },
        scales: { x: { time: true, range: timeRange }, y: { range: (u, min, max) => [0, Math.max(max * 1.15, 1e-9)] } },
        axes: [
          { stroke: '#586577', grid: { stroke: '#eef2f7' }, space: 90, values: timeLabels },
          { stroke: '#586577', grid: { stroke: '#eef2f7' }, size: 84, values: (u, ticks) => ticks.map(this.format) },
        ],
        series: [{}, ...labels.map((label, i) => ({
          label, stroke: COLOURS[i % COLOURS.length], width: 2, value: (u, v) => (v == null ? '—' : this.format(v)),
        }))],
      }, [this.times, ...this.values], this.canvas);
    } else {
      this.plot.setData([this.times, ...this.values]);
    }
  }

  /** Says why there is nothing to draw, in place of the chart. */
  note(text) {
    this.canvas.hidden = true;
    this.latest.textContent = text;
  }

  destroy() {
    this.resize.disconnect();
    if (this.plot) this.plot.destroy();
  }
}
