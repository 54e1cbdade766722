import { request, type IncomingHttpHeaders } from 'node:http';

export interface RawResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * One HTTP request whose headers are sent exactly as listed (name, value, name, value …), repeats
 * included: fetch joins a repeated header into one line, and a test of repeated headers needs two.
 */
export function rawRequest(origin: string, options: { method?: string; path: string; headers: readonly string[]; body?: string }): Promise<RawResponse> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    // Node adds no Host header of its own to a header list.
    const headers = ['host', url.host, ...options.headers, ...(options.body === undefined ? [] : ['content-length', String(Buffer.byteLength(options.body))])];
    const req = request({ host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port, path: options.path, method: options.method ?? 'GET', headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}
