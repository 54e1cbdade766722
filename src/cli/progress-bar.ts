/** A one-line progress bar for long CLI work. Draws only on a terminal, so pipes and logs stay clean. */
export interface ProgressBar {
  /** Sets the amount done (same unit as `total`). */
  update(done: number): void;
  finish(): void;
}

export interface ProgressBarOptions {
  label: string;
  total: number;
  /** Formats amounts; defaults to plain integers. */
  format?: (value: number) => string;
  stream?: NodeJS.WriteStream;
}

const WIDTH = 28;
const REDRAW_MS = 80;

export function createProgressBar(options: ProgressBarOptions): ProgressBar {
  const stream = options.stream ?? process.stderr;
  if (!stream.isTTY) return { update: () => undefined, finish: () => undefined };
  const format = options.format ?? ((value: number) => String(Math.round(value)));
  let lastDraw = 0;
  let done = 0;
  const draw = () => {
    const ratio = options.total > 0 ? Math.min(1, done / options.total) : 1;
    const filled = Math.round(ratio * WIDTH);
    const line = `${options.label} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}% ${format(done)}/${format(options.total)}`;
    stream.write(`\r${line}\u001b[K`);
  };
  return {
    update(value) {
      done = value;
      const now = Date.now();
      if (now - lastDraw >= REDRAW_MS) {
        lastDraw = now;
        draw();
      }
    },
    finish() {
      done = options.total;
      draw();
      stream.write('\n');
    },
  };
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
