import { request, type IncomingHttpHeaders } from 'node:http';

export interface SseEvent {
  readonly event: string;
  readonly data: string;
}

/**
 * A raw SSE client over node:http, for tests that need what EventSource hides: the status and body of
 * a refusal, keepalive comments, the exact frame sequence, and a reader that stops reading.
 */
export class SseClient {
  status = 0;
  headers: IncomingHttpHeaders = {};
  /** The body of a refusal (JSON text). */
  body = '';
  readonly events: SseEvent[] = [];
  keepalives = 0;
  /** Resolves when the response ends or the connection closes. */
  readonly done: Promise<void>;
  readonly #waiters: (() => void)[] = [];
  #buffer = '';
  #finished = false;
  #destroy: () => void = () => undefined;
  #pause: () => void = () => undefined;

  constructor(origin: string, path: string, headers: Record<string, string | string[]>, method = 'GET') {
    let finish!: () => void;
    this.done = new Promise((resolve) => {
      finish = resolve;
    });
    const end = (): void => {
      if (this.#finished) return;
      this.#finished = true;
      this.#wake();
      finish();
    };
    const url = new URL(origin);
    const req = request({ host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path, method, headers, agent: false }, (res) => {
      this.status = res.statusCode ?? 0;
      this.headers = res.headers;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (this.status !== 200) this.body += chunk;
        else this.#feed(chunk);
      });
      res.on('end', end);
      res.on('close', end);
      res.on('error', end);
      this.#pause = () => res.socket.pause();
      this.#wake();
    });
    req.on('error', end);
    req.end();
    this.#destroy = () => req.destroy();
  }

  get finished(): boolean {
    return this.#finished;
  }

  #feed(chunk: string): void {
    this.#buffer += chunk;
    let cut: number;
    while ((cut = this.#buffer.indexOf('\n\n')) !== -1) {
      const block = this.#buffer.slice(0, cut);
      this.#buffer = this.#buffer.slice(cut + 2);
      let event = 'message';
      const data: string[] = [];
      let comment = false;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comment = true;
        else if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
        else if (line.startsWith('data:')) data.push(line.slice(5));
      }
      if (comment && data.length === 0) this.keepalives++;
      else this.events.push({ event, data: data.join('\n') });
    }
    this.#wake();
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  /** Waits until `test` holds (checked on every chunk), failing after `timeoutMs`. */
  async until(test: (client: SseClient) => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test(this)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; have ${JSON.stringify({ status: this.status, events: this.events, body: this.body, finished: this.#finished })}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for the response head. */
  async opened(): Promise<this> {
    await this.until((c) => c.status !== 0 || c.finished, 'the response head');
    if (this.status !== 200) await this.done;
    return this;
  }

  /** The JSON of each `next` event's data. */
  frames(): unknown[] {
    return this.events.filter((e) => e.event === 'next').map((e) => JSON.parse(e.data) as unknown);
  }

  /** Stops reading: the socket is paused, so the server's writes pile up. */
  stopReading(): void {
    this.#pause();
  }

  close(): void {
    this.#destroy();
  }
}
