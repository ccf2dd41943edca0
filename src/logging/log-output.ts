// Where the process's log lines go: standard output, written asynchronously, with a bounded buffer.
// pino's default destination buffers without bound while standard output is slower than the lines
// come (a log shipper behind, a terminal): during a database outage under load every refused request
// wrote its line, the buffer held tens of megabytes of strings, and with the recommended heap cap the
// process ran back-to-back major collections (issue #28, fault 10). Beyond LOG_BUFFER_MAX_BYTES lines
// are dropped and counted (mrs_log_lines_dropped_total), and one line says so once there is room.
import pino from 'pino';
import type { DestinationStream } from 'pino';

export interface LogOutput {
  stream: DestinationStream;
  /** Lines dropped since the process started. */
  dropped(): number;
}

let output: LogOutput | undefined;

/** How often a drop is told in the log itself (once there is room again). */
const DROP_REPORT_MS = 10_000;

/** The one standard-output destination of the process (made at its first use, with that bound). */
export function processLogOutput(maxBufferBytes: number): LogOutput {
  if (output !== undefined) return output;
  const stream = pino.destination({ dest: 1, sync: false, minLength: 0, maxLength: maxBufferBytes });
  let dropped = 0;
  let reported = 0;
  stream.on('drop', () => {
    dropped += 1;
  });
  const timer = setInterval(() => {
    if (dropped === reported) return;
    const line = {
      level: 40,
      time: Date.now(),
      msg: 'log lines dropped: standard output is slower than the process writes',
      dropped: dropped - reported,
      maxBufferBytes,
    };
    reported = dropped;
    stream.write(`${JSON.stringify(line)}\n`);
  }, DROP_REPORT_MS);
  timer.unref();
  output = { stream, dropped: () => dropped };
  return output;
}

/** Lines dropped so far (0 when the process writes its logs elsewhere, as tests do). */
export function droppedLogLines(): number {
  return output?.dropped() ?? 0;
}
