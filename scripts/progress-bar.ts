/**
 * Progress of a long command on stderr: a bar redrawn in place (\r) on a terminal, and one plain line
 * per finished step otherwise, so logs and CI output are not flooded with carriage returns.
 */
export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressBar {
  /** `step` names what is being done; `stepDone`/`stepTotal` count it, `done`/`total` the whole. */
  update(progress: { step: string; stepDone: number; stepTotal: number; done: number; total: number }): void;
  /** Erases the bar (on a terminal) so the summary starts on a clean line. */
  finish(): void;
}

const WIDTH = 30;
/** Redrawing more often than this only costs time. */
const REDRAW_MS = 80;

export function progressBar(output: ProgressOutput): ProgressBar {
  return output.isTTY === true ? terminalBar(output) : lineProgress(output);
}

function terminalBar(output: ProgressOutput): ProgressBar {
  let drawnAt = 0;
  let drawn = false;
  return {
    update({ step, stepDone, stepTotal, done, total }) {
      const now = Date.now();
      if (now - drawnAt < REDRAW_MS && done < total) return;
      drawnAt = now;
      drawn = true;
      const ratio = total === 0 ? 1 : done / total;
      const filled = Math.round(ratio * WIDTH);
      const bar = `${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}`;
      output.write(`\r\x1b[K[${bar}] ${String(Math.floor(ratio * 100)).padStart(3)}% ${step} ${count(stepDone)}/${count(stepTotal)}`);
    },
    finish() {
      if (drawn) output.write('\r\x1b[K');
      drawn = false;
    },
  };
}

function lineProgress(output: ProgressOutput): ProgressBar {
  return {
    update({ step, stepDone, stepTotal }) {
      if (stepDone === stepTotal) output.write(`loaded ${count(stepTotal)} ${step}\n`);
    },
    finish() {},
  };
}

/** 35716 -> "35,716" */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}
