import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportSkip } from '../../support/skip-reason.ts';
import type { GraphEngine } from '../../../src/graph/engine/index.ts';
import { referenceEngine, startServer, type Server } from './support.ts';

/** Debian's Chromium (`apt-get install chromium`); .ci/run installs it, so CI never skips this. */
const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available && process.env['CI']) throw new Error(`${CHROMIUM} is missing in CI; .ci/run installs Debian's chromium before the tests.`);
if (!available) reportSkip('The GraphiQL browser test', `${CHROMIUM} is missing`, "apt-get install -y chromium (Debian's; .ci/run installs it), then npm test");

let engine: GraphEngine;
let server: Server;
let browser: Browser;

describe.skipIf(!available)(`GraphiQL in headless Chromium (${CHROMIUM})`, () => {
  beforeAll(async () => {
    engine = await referenceEngine();
    server = await startServer(engine);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await engine?.close();
  });

  it('loads /graphql/demo, runs a query, and the result pane shows data', { timeout: 60_000 }, async () => {
    const page = await browser.newPage();
    const failed: string[] = [];
    page.on('requestfailed', (request) => failed.push(request.url()));
    const response = await page.goto(server.url, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toContain('text/html');
    // Sent br-compressed (Chromium asks for br); the page Chromium decompressed runs.
    expect(response?.headers()['content-encoding']).toBe('br');
    expect(response?.headers()['etag']).toMatch(/-br"$/);
    // GraphiQL is bundled into the page: nothing is fetched from a CDN.
    await page.locator('.graphiql-execute-button').waitFor({ timeout: 20_000 });
    const editor = page.locator('.graphiql-query-editor .monaco-editor, .graphiql-query-editor .CodeMirror').first();
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.type('{ Person(first: 1) { name', { delay: 5 });
    // Close the editor's suggestions, which lie over the execute button. Monaco may reopen
    // the widget after a late keystroke, so press Escape until it stays closed.
    const suggestions = page.locator('.suggest-widget.visible');
    await expect
      .poll(async () => {
        await page.keyboard.press('Escape');
        await page.waitForTimeout(150);
        return suggestions.count();
      }, { timeout: 10_000 })
      .toBe(0);
    const answered = page.waitForResponse((r) => r.url() === server.url && r.request().method() === 'POST' && /Person\(first: ?1\)/.test(r.request().postData() ?? ''));
    await page.locator('.graphiql-execute-button').click();
    expect((await answered).status()).toBe(200);
    // Monaco renders spaces as no-break spaces.
    // biome-ignore lint/performance/useDomNodeTextContent: the test reads the response as rendered (innerText), which is what a user sees in the editor.
    await expect.poll(async () => (await page.locator('.graphiql-response').first().innerText()).replace(/\s+/g, ' '), { timeout: 15_000 }).toContain('"name": "Ada Lovelace"');
    expect(failed.filter((url) => !url.startsWith(server.origin))).toEqual([]);
    // One page serves every graph: it names its tab after the graph in its path.
    expect(await page.title()).toBe('toolgraph: demo');
  });
});
