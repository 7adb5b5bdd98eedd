// Progress for a person watching a long command (backfill, preview, setup): a cli-progress bar on
// stderr, only when stderr is a terminal and the answer is not JSON. Logs and scripts never see it, and
// stdout keeps only the answer.
import { Presets, SingleBar } from 'cli-progress';
import { jsonOutput } from './output.ts';

/** A bar in `format` (cli-progress tokens and payload names), or undefined when nobody watches. */
export function progressBar(format: string, stream: NodeJS.WriteStream = process.stderr): SingleBar | undefined {
  if (!stream.isTTY || jsonOutput()) return undefined;
  return new SingleBar({ stream, format, hideCursor: true, clearOnComplete: false }, Presets.shades_classic);
}

export type Steps = {
  /** The next step starts (the ones before it are done). */
  next(label: string): void;
  /** The bar stops, leaving its last line: all steps done, or (finished false) where it failed. */
  stop(finished?: boolean): void;
};

/** Named steps of a job whose parts are known but not how long each takes (setup). */
export function stepProgress(steps: number, stream: NodeJS.WriteStream = process.stderr): Steps {
  const bar = progressBar('{bar} {value}/{total} {step}', stream);
  let done = -1;
  return {
    next(label) {
      if (!bar) return;
      done += 1;
      if (!bar.isActive) bar.start(steps, done, { step: label });
      else bar.update(done, { step: label });
    },
    stop(finished = true) {
      if (!bar?.isActive) return;
      if (finished) bar.update(steps, { step: 'done' });
      bar.stop();
    },
  };
}
