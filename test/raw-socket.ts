// Raw HTTP/1.1 over a real socket for tests: send exact bytes (broken framing, huge lines, trickled
// bodies) and read back what the server wrote before it closed, with how long that took.
import { connect } from 'node:net';

export interface RawAnswer {
  /** Status of the first answer on the socket; undefined when the server wrote nothing. */
  status: number | undefined;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds from connecting until the server closed the socket (or our limit ended it). */
  elapsedMs: number;
  /** True when the server closed the socket; false when our own limit ran out first. */
  closedByServer: boolean;
}

export interface RawExchange {
  /** Bytes to write at once after connecting. */
  send?: Buffer | string;
  /** Chunks to write one by one, each after a pause (a trickling client). */
  trickle?: { chunks: Array<Buffer | string>; everyMs: number };
  /** Give up after this long (the test's bound); the socket is then destroyed. */
  limitMs?: number;
}

/** One exchange on a fresh connection to 127.0.0.1:port. */
export function rawExchange(port: number, exchange: RawExchange): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect({ port, host: '127.0.0.1' });
    const chunks: Buffer[] = [];
    let trickleTimer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = (closedByServer: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(trickleTimer);
      socket.destroy();
      resolve({ ...parseAnswer(Buffer.concat(chunks)), elapsedMs: Date.now() - started, closedByServer });
    };
    socket.on('connect', () => {
      if (exchange.send !== undefined) socket.write(exchange.send);
      if (exchange.trickle) {
        const queue = [...exchange.trickle.chunks];
        trickleTimer = setInterval(() => {
          const next = queue.shift();
          if (next === undefined) return clearInterval(trickleTimer);
          if (!socket.destroyed && socket.writable) socket.write(next);
        }, exchange.trickle.everyMs);
      }
    });
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    const timer = setTimeout(() => finish(false), exchange.limitMs ?? 5000);
  });
}

function parseAnswer(raw: Buffer): Pick<RawAnswer, 'status' | 'headers' | 'body'> {
  const text = raw.toString('utf8');
  const headEnd = text.indexOf('\r\n\r\n');
  if (!text.startsWith('HTTP/1.1 ') || headEnd === -1) return { status: undefined, headers: {}, body: text };
  const [statusLine = '', ...lines] = text.slice(0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(headEnd + 4);
  const length = headers['content-length'];
  if (length !== undefined) body = Buffer.from(body).subarray(0, Number(length)).toString('utf8');
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}
