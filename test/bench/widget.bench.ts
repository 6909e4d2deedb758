/**
 * Benchmark of the livechat widget (issue 26). Run: `node --import tsx test/bench/widget.bench.ts` (env LOADS, default
 * 30; MESSAGES, default 50; VISITORS, default 50; EACH, default 10; ROUNDS, default 2).
 *
 * Embedded Temporal dev server, a fresh database, the API and one worker (runs and turns) in processes of their own,
 * Debian's Chromium through playwright-core with the browser cache off; the host page on another local origin; no AI
 * provider (the flow says a static message). It prints:
 *  - script request to launcher visible p50/p95 (the script's resource timing start to the widget's performance mark);
 *  - message sent to reply visible p50/p95, measured in the page (submit to the reply's node in the shadow root);
 *  - the bundle's size, raw and gzipped;
 *  - VISITORS widget sessions talking at once from browser pages (PER_PAGE a page, each page a context of its own),
 *    reply time in the page, against VISITORS conversations at once through the key-authenticated API from Node: p50
 *    and the ratio.
 */
import { cpus, loadavg, totalmem } from 'node:os';
import type { Page } from 'playwright-core';
import { benchApi, percentile, startProcess, stopProcesses } from './bench-processes.js';
import { benchPlatform } from './bench-platform.js';
import { HOURS_REPLY, hoursAgent } from './bench-agent.js';
import { browser, hostSite, visitorsBrowser } from '../api/widget/widget-page.js';

const LOADS = Number(process.env.LOADS ?? 30);
const MESSAGES = Number(process.env.MESSAGES ?? 50);
const VISITORS = Number(process.env.VISITORS ?? 50);
const EACH = Number(process.env.EACH ?? 10);

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const stats = (samples: number[]) => `p50 ${fmt(percentile(samples, 50))}, p95 ${fmt(percentile(samples, 95))}`;

const ROUNDS = Number(process.env.ROUNDS ?? 2);
const PER_PAGE = 5;

/** In a page: `count` widget sessions at once, each sending `each` messages in turn; resolves with the reply times. */
const widgetVisitors = (api: string, count: number, each: number) => `(async () => {
  const json = { 'content-type': 'application/json' };
  const samples = [];
  await Promise.all(Array.from({ length: ${count} }, async () => {
    const session = await (await fetch('${api}/sessions', { method: 'POST', headers: json, body: '{}' })).json();
    for (let i = 0; i < ${each}; i += 1) {
      const started = performance.now();
      const res = await fetch('${api}/conversations/' + session.conversationId + '/messages', {
        method: 'POST',
        headers: { ...json, authorization: 'Bearer ' + session.token },
        body: JSON.stringify({ text: 'When are you open?' }),
      });
      const turn = await res.json();
      if (!turn.messages || turn.messages[0].text !== ${JSON.stringify(HOURS_REPLY)}) throw new Error(res.status + ' ' + JSON.stringify(turn));
      samples.push(performance.now() - started);
    }
  }));
  return samples;
})()`;

/** In the page: sends "When are you open?" through the open panel; resolves with the ms until the reply shows. */
const SEND = `new Promise((resolve) => {
  const root = document.querySelector('[data-agentry-widget]').shadowRoot;
  const log = root.querySelector('.log');
  const before = log.querySelectorAll('.message.agent').length;
  const observer = new MutationObserver(() => {
    const agent = log.querySelectorAll('.message.agent');
    if (agent.length > before && agent[agent.length - 1].textContent.includes(${JSON.stringify(HOURS_REPLY)})) {
      observer.disconnect();
      resolve(performance.now() - started);
    }
  });
  observer.observe(log, { childList: true, subtree: true });
  root.querySelector('textarea').value = 'When are you open?';
  const started = performance.now();
  root.querySelector('form.composer').requestSubmit();
})`;

/** What to undo at the end, or after a failure: the browsers, the host page, the processes, the database. */
const cleanups: (() => Promise<void> | void)[] = [];
async function cleanUp(): Promise<void> {
  stopProcesses();
  for (const undo of cleanups.reverse()) await Promise.resolve(undo()).catch(() => undefined);
}

async function main(): Promise<void> {
  const platform = await benchPlatform();
  cleanups.push(() => platform.close());
  const common = platform.processEnv;
  const [[, port]] = await Promise.all([
    startProcess('test/bench/api-process.ts', common, /port (\d+)/),
    startProcess('worker/main.ts', { ...common, LOG_LEVEL: 'INFO', WORKER_QUEUES: 'runs,turns' }, /polling task queue/),
  ]);
  const origin = `http://127.0.0.1:${port}`;
  const api = benchApi(port!, platform.account.userKey);
  const agent = await hoursAgent(api);
  const found = await browser();
  if ('reason' in found) throw new Error(found.reason);
  cleanups.push(found.close);
  const site = await hostSite();
  cleanups.push(site.close);
  const url = site.page(origin, agent.id);

  // Script request to launcher visible, every load fetching the script (cache off) into a fresh page.
  const loads: number[] = [];
  for (let i = 0; i < LOADS + 3; i += 1) {
    const page = await found.context.newPage();
    const cdp = await found.context.newCDPSession(page);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await page.goto(url);
    await page.locator('.frame.ready .launcher').waitFor();
    const ms = await page.evaluate(`(() => {
      const script = performance.getEntriesByType('resource').find((e) => e.name.endsWith('/widget/v1/widget.js'));
      return performance.getEntriesByName('agentry-widget:launcher')[0].startTime - script.startTime;
    })()`);
    if (i >= 3) loads.push(ms as number);
    await page.close();
  }

  // Message sent to reply visible, in one open chat.
  const page = await found.context.newPage();
  await page.goto(url);
  await page.locator('.launcher').click();
  await page.locator('.log .message').first().waitFor();
  const replies: number[] = [];
  for (let i = 0; i < MESSAGES + 5; i += 1) {
    const ms = await page.evaluate(SEND);
    if (i >= 5) replies.push(ms as number);
  }
  await page.close();
  const manifest = (await (await fetch(`${origin}/widget/v1/widget.json`)).json()) as { bytes: number; gzipBytes: number };

  // VISITORS visitors at once from the browser: pages in contexts of their own (a context, like a browser, keeps at most
  // 6 connections to a host, so each page holds PER_PAGE visitors), each visitor a widget session sending EACH messages
  // one after the other through the widget API (CORS, session token), the reply timed in the page; against VISITORS
  // conversations at once through the key-authenticated API from Node. Rounds alternate so that whatever else the
  // machine does weighs on both alike.
  const many = await visitorsBrowser();
  cleanups.push(() => many.close());
  const pages: Page[] = [];
  for (let i = 0; i < Math.ceil(VISITORS / PER_PAGE); i += 1) {
    const visitor = await (await many.newContext()).newPage();
    visitor.setDefaultTimeout(120_000);
    await visitor.goto(url);
    await visitor.locator('.frame.ready .launcher').waitFor();
    pages.push(visitor);
  }
  const widgetApi = `${origin}/widget/v1/agents/${agent.id}`;
  const widgetTurns: number[] = [];
  const apiTurns: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const rounds = await Promise.all(
      pages.map((visitor, i) => visitor.evaluate(widgetVisitors(widgetApi, Math.min(PER_PAGE, VISITORS - i * PER_PAGE), EACH))),
    );
    widgetTurns.push(...(rounds as number[][]).flat());
    await Promise.all(
      Array.from({ length: VISITORS }, async () => {
        const { id } = await api('POST', `${agent.base}/conversations`, {});
        for (let i = 0; i < EACH; i += 1) {
          const started = performance.now();
          const turn = await api('POST', `${agent.base}/conversations/${id}/messages`, { text: 'When are you open?' });
          if (turn.messages[0].text !== HOURS_REPLY) throw new Error(JSON.stringify(turn));
          apiTurns.push(performance.now() - started);
        }
      }),
    );
    console.error(`round ${round + 1} of ${ROUNDS} done`);
  }

  console.log(`livechat widget benchmark — ${cpus().length} cores, ${(totalmem() / 1e9).toFixed(1)} GB, load ${loadavg()[0]!.toFixed(2)}`);
  console.log(
    "embedded Temporal dev server, API and one worker process (runs and turns), Debian's Chromium (headless, cache off), host page on another origin; flow: TRIGGER_INTENT → SAY_AI (static)",
  );
  console.log(`script request to launcher visible (${loads.length} loads): ${stats(loads)} (target p50 < 300 ms)`);
  console.log(`message sent to reply visible (${replies.length} messages): ${stats(replies)} (target p50 < 150 ms)`);
  console.log(`bundle: ${manifest.bytes} bytes, ${manifest.gzipBytes} gzipped (budget 30720)`);
  const ratio = percentile(widgetTurns, 50) / percentile(apiTurns, 50);
  console.log(
    `${VISITORS} visitors at once × ${EACH} messages × ${ROUNDS} rounds: widget reply (in the page) ${stats(widgetTurns)}; API-only turn ${stats(apiTurns)}; p50 ratio ${ratio.toFixed(2)}x (target ≤ 1.3x)`,
  );
  await cleanUp();
}

main().catch(async (error) => {
  console.error(error);
  await cleanUp();
  process.exit(1);
});
