import { useEffect, useRef } from 'react'
import { CategoryScale, Chart, Filler, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js'

Chart.register(LineController, LineElement, PointElement, LinearScale, CategoryScale, Filler, Legend, Tooltip)

export interface Series {
  label: string
  values: number[]
  /** CSS variable holding the colour, so dark mode recolours the chart */
  colorVar: string
  fill?: boolean
}

/** A tick's text: one line, or lines under each other */
export type TickLabel = string | string[]
/** Which points get a tick label, given the plot's width and a way to measure text; null: none. */
export type TickPlanner = (width: number, measure: (text: string) => number) => (TickLabel | null)[]

const cssVar = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888'

/**
 * A line chart on a canvas with role="img": its accessible name says what it shows in words
 * (the range and totals), and the same numbers are in a table beside it for screen readers.
 */
export function LineChart({ labels, series, name, small, ticks }: { labels: string[]; series: Series[]; name: string; small?: boolean; ticks?: TickPlanner }) {
  const canvas = useRef<HTMLCanvasElement>(null)
  useEffect(() => {
    const el = canvas.current
    if (!el) return
    const media = window.matchMedia('(prefers-color-scheme: dark)')
    let chart: Chart | undefined
    const draw = () => {
      chart?.destroy()
      const grid = cssVar('--border')
      const text = cssVar('--muted')
      // Chart.js's own skipping let long labels overlap at phone width: the planner picks them, per width
      const pen = document.createElement('canvas').getContext('2d')
      const font = Chart.defaults.font
      const measure = (t: string) => (pen ? ((pen.font = `${font.size}px ${font.family}`), pen.measureText(t).width) : t.length * 7)
      let planned: { width: number; labels: (TickLabel | null)[] } | undefined
      const xTicks = ticks
        ? {
            autoSkip: false,
            callback(this: { chart: Chart }, _value: unknown, index: number) {
              // the y axis takes some 50 px of the canvas
              const width = Math.max(1, (this.chart.chartArea?.width ?? this.chart.width - 50) - 8)
              if (planned?.width !== width) planned = { width, labels: ticks(width, measure) }
              return planned.labels[index] ?? null
            },
          }
        : { autoSkip: true, maxTicksLimit: el.clientWidth < 500 ? 4 : 8 }
      chart = new Chart(el, {
        type: 'line',
        data: {
          labels,
          datasets: series.map((s) => {
            const color = cssVar(s.colorVar)
            return {
              label: s.label,
              data: s.values,
              borderColor: color,
              backgroundColor: s.fill ? color + '22' : color,
              fill: s.fill ?? false,
              // a smooth line that never swings below zero or above a peak between two points
              cubicInterpolationMode: 'monotone' as const,
              pointRadius: labels.length > 60 ? 0 : 2,
              borderWidth: 2,
            }
          }),
        },
        options: {
          responsive: true,
          maintainAspectRatio: false,
          animation: false,
          interaction: { mode: 'index', intersect: false },
          scales: {
            x: { grid: { color: grid }, ticks: { color: text, maxRotation: 0, ...xTicks } },
            y: { beginAtZero: true, grid: { color: grid }, ticks: { color: text, precision: 0 } },
          },
          plugins: { legend: { labels: { color: text, boxWidth: 12 } } },
        },
      })
    }
    draw()
    media.addEventListener('change', draw)
    return () => {
      media.removeEventListener('change', draw)
      chart?.destroy()
    }
  }, [labels, series, ticks])
  return (
    <div className={small ? 'chart-box small' : 'chart-box'}>
      <canvas ref={canvas} role="img" aria-label={name}>
        {name}
      </canvas>
    </div>
  )
}
