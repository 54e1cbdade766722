/**
 * The user's browser, for the interactive flows (device code, authorization code): a cookie jar,
 * redirects followed one by one, and every HTML page that holds a POST form submitted with its
 * hidden inputs (oidc-provider's form_post pages and its device confirmation page, which a person
 * would click through). Login and consent are answered by the test IdP (`idp.ts`).
 */
export interface BrowserStep {
  method: 'GET' | 'POST';
  url: string;
  status: number;
  /** The Set-Cookie headers of the answer, as sent. */
  setCookies: string[];
}

export interface BrowserVisit {
  /** Every request made, in order. */
  steps: BrowserStep[];
  /** The last page: its URL, status and body. */
  url: string;
  status: number;
  body: string;
}

interface Cookie {
  name: string;
  value: string;
  host: string;
  path: string;
}

function decodeHtml(text: string): string {
  return text.replaceAll('&amp;', '&').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&#x27;', "'").replaceAll('&lt;', '<').replaceAll('&gt;', '>');
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}="([^"]*)"`, 'i').exec(tag);
  return match ? decodeHtml(match[1]!) : undefined;
}

/**
 * The first POST form of a page whose inputs are all hidden (a page a person only clicks through:
 * form_post, the device confirmation), with its action and fields. A form asking for input (the
 * device code page after an error) is where a person would stop, and so does this browser.
 */
function postForm(html: string): { action: string; fields: URLSearchParams } | undefined {
  const form = /<form\b([^>]*)>([\s\S]*?)<\/form>/i.exec(html);
  if (!form || (attribute(form[1]!, 'method') ?? 'get').toLowerCase() !== 'post') return undefined;
  const fields = new URLSearchParams();
  for (const input of form[2]!.matchAll(/<input\b[^>]*>/gi)) {
    if ((attribute(input[0], 'type') ?? 'text').toLowerCase() !== 'hidden') return undefined;
    const name = attribute(input[0], 'name');
    const value = attribute(input[0], 'value');
    if (name !== undefined && value !== undefined) fields.append(name, value);
  }
  return { action: attribute(form[1]!, 'action') ?? '', fields };
}

export class Browser {
  readonly #cookies: Cookie[] = [];

  /**
   * Opens `url` and goes wherever the pages lead, at most `maxSteps` requests. With `stopBefore`, the
   * browser stops (without requesting it) at the first URL, `url` included, that the predicate accepts:
   * the visit's `url` is that URL, its status 0 and body empty (a person copying a link instead of
   * following it).
   */
  async visit(url: string, maxSteps = 20, stopBefore?: (next: URL) => boolean): Promise<BrowserVisit> {
    const steps: BrowserStep[] = [];
    let method: 'GET' | 'POST' = 'GET';
    let current = new URL(url);
    let body: URLSearchParams | undefined;
    for (let i = 0; i < maxSteps; i += 1) {
      if (stopBefore?.(current)) return { steps, url: current.href, status: 0, body: '' };
      const headers: Record<string, string> = {};
      const cookie = this.#cookieHeader(current);
      if (cookie) headers['cookie'] = cookie;
      if (body) headers['content-type'] = 'application/x-www-form-urlencoded';
      const response = await fetch(current, { method, headers, body, redirect: 'manual' });
      steps.push({ method, url: current.href, status: response.status, setCookies: response.headers.getSetCookie() });
      this.#store(current, response.headers.getSetCookie());
      const text = await response.text();
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        current = new URL(location, current);
        method = 'GET';
        body = undefined;
        continue;
      }
      const form = response.status === 200 ? postForm(text) : undefined;
      if (form) {
        current = new URL(form.action, current);
        method = 'POST';
        body = form.fields;
        continue;
      }
      return { steps, url: current.href, status: response.status, body: text };
    }
    throw new Error(`the browser gave up after ${maxSteps} requests: ${steps.map((s) => `${s.method} ${s.url} ${s.status}`).join(' → ')}`);
  }

  /** The cookies this browser holds for `url` (name → value), as it would send them. */
  cookiesFor(url: string): Record<string, string> {
    const at = new URL(url);
    return Object.fromEntries(this.#cookies.filter((c) => c.host === at.host && at.pathname.startsWith(c.path)).map((c) => [c.name, c.value]));
  }

  #cookieHeader(url: URL): string {
    return this.#cookies.filter((c) => c.host === url.host && url.pathname.startsWith(c.path)).map((c) => `${c.name}=${c.value}`).join('; ');
  }

  #store(url: URL, setCookies: string[]): void {
    for (const header of setCookies) {
      const [pair, ...attributes] = header.split(';').map((part) => part.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const pathAttribute = attributes.find((a) => a.toLowerCase().startsWith('path='));
      const path = pathAttribute ? pathAttribute.slice(5) : '/';
      const expired = attributes.some((a) => /^expires=/i.test(a) && Date.parse(a.slice(8)) < Date.now()) || attributes.some((a) => /^max-age=0$/i.test(a));
      const index = this.#cookies.findIndex((c) => c.name === name && c.host === url.host && c.path === path);
      if (index >= 0) this.#cookies.splice(index, 1);
      if (!expired) this.#cookies.push({ name, value, host: url.host, path });
    }
  }
}
