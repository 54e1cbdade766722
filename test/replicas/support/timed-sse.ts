import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface TimedFrame {
  readonly event: string;
  readonly data: string;
  /** performance.now() when its last byte was read. */
  readonly at: number;
}

/**
 * An SSE reader over http or https (a CA for the test's self-signed certificate) that stamps each
 * frame with its arrival time, for measuring how long a change takes to reach a subscriber.
 */
export class TimedSse {
  status = 0;
  body = '';
  readonly frames: TimedFrame[] = [];
  readonly opened: Promise<void>;
  #buffer = '';
  #waiters: (() => void)[] = [];
  #destroy: () => void = () => undefined;

  constructor(url: string, headers: Record<string, string>, ca?: string) {
    const target = new URL(url);
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    this.opened = new Promise((resolve, reject) => {
      const req = request(target, { method: 'GET', headers: { accept: 'text/event-stream', ...headers }, agent: false, ...(ca ? { ca } : {}) }, (res: IncomingMessage) => {
        this.status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => this.#read(chunk));
        res.on('end', () => this.#wake());
        resolve();
      });
      req.on('error', reject);
      req.end();
      this.#destroy = () => req.destroy();
    });
  }

  #read(chunk: string): void {
    if (this.status !== 200) {
      this.body += chunk;
      return;
    }
    this.#buffer += chunk;
    const at = performance.now();
    let end: number;
    while ((end = this.#buffer.indexOf('\n\n')) !== -1) {
      const block = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      let event = 'message';
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
      }
      if (data.length > 0) this.frames.push({ event, data: data.join('\n'), at });
    }
    this.#wake();
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  /** Waits until `test` holds (checked on every chunk), or fails after `timeoutMs`. */
  async until(test: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    while (!test()) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; frames: ${this.frames.slice(-3).map((f) => f.data).join(' | ')}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 250));
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The response body of a refusal, once it has all arrived. */
  async refusal(): Promise<{ status: number; body: string }> {
    await this.opened;
    await this.until(() => this.body.endsWith('}'), 'the refusal body', 5_000).catch(() => undefined);
    return { status: this.status, body: this.body };
  }

  close(): void {
    this.#destroy();
  }
}
