/**
 * Benchmark of the operator console (issue 46). Run: `node --import tsx test/bench/console.bench.ts` (env MESSAGES,
 * default 40; WAITING, default 200; LOADS, default 10).
 *
 * Embedded Temporal dev server, a fresh database, the API and one worker (runs and turns) in processes of their own,
 * Debian's Chromium through playwright-core, a person signed in with a password. It prints:
 *  - a visitor's message visible in the open console: the page itself sends it through the widget API (the visitor's
 *    session token) and times it to its node in the transcript, which arrives through the conversation's stream;
 *  - WAITING conversations waiting for a person painting the inbox: navigation start to the first frame with every row.
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg, totalmem } from 'node:os';
import { setPassword } from '../../db/accounts/passwords.service.js';
import { benchApi, percentile, startProcess, stopProcesses } from './bench-processes.js';
import { benchPlatform } from './bench-platform.js';
import { hoursAgent } from './bench-agent.js';
import { visitorsBrowser } from '../api/widget/widget-page.js';

const MESSAGES = Number(process.env.MESSAGES ?? 40);
const WAITING = Number(process.env.WAITING ?? 200);
const LOADS = Number(process.env.LOADS ?? 10);

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;
const stats = (samples: number[]) => `p50 ${fmt(percentile(samples, 50))}, p95 ${fmt(percentile(samples, 95))}`;

/** In the console page: the visitor sends `text` through the widget API; resolves with the ms until it shows. */
const VISITOR_SAYS = (api: string, token: string, text: string) => `new Promise((resolve, reject) => {
  const log = document.querySelector('.log');
  const observer = new MutationObserver(() => {
    const last = log.querySelector('.msg.user:last-of-type .text');
    if (last && last.textContent === ${JSON.stringify(text)}) {
      observer.disconnect();
      resolve(performance.now() - started);
    }
  });
  observer.observe(log, { childList: true });
  const started = performance.now();
  fetch(${JSON.stringify(api)}, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer ${token}' },
    body: JSON.stringify({ text: ${JSON.stringify(text)} }),
  }).then((res) => res.ok || reject(new Error('visitor message: ' + res.status)), reject);
})`;

/** Every row of the waiting list drawn: the time since navigation start, at the frame that shows them. */
const INBOX_PAINTED = (count: number) => `new Promise((resolve) => {
  const check = () => {
    if (document.querySelectorAll('.waiting li.conv').length >= ${count}) requestAnimationFrame(() => resolve(performance.now()));
    else requestAnimationFrame(check);
  };
  check();
})`;

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
  const password = randomBytes(12).toString('hex');
  await setPassword(platform.orm.em.fork(), platform.account.user.email, password);
  const agent = await hoursAgent(api);

  const browser = await visitorsBrowser();
  cleanups.push(() => browser.close());
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${origin}/console`);
  await page.getByLabel('Email').fill(platform.account.user.email);
  await page.getByLabel('Password').fill(password);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();

  // A visitor's message visible in the open console: a widget session, handed off, open in the console.
  const session = (await (
    await fetch(`${origin}/widget/v1/agents/${agent.id}/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  ).json()) as {
    conversationId: string;
    token: string;
  };
  await api('POST', `${agent.base}/conversations/${session.conversationId}/handoff`);
  await page.goto(`${origin}/console#/c/${agent.id}/${session.conversationId}`);
  await page.locator('.log .msg').first().waitFor();
  const messageUrl = `${origin}/widget/v1/agents/${agent.id}/conversations/${session.conversationId}/messages`;
  const visible: number[] = [];
  for (let i = 0; i < MESSAGES + 5; i += 1) {
    const ms = (await page.evaluate(VISITOR_SAYS(messageUrl, session.token, `Visitor message ${i}`))) as number;
    if (i >= 5) visible.push(ms);
  }

  // WAITING conversations waiting for a person (ten at a time through the API), then the inbox loaded LOADS times.
  for (let i = 0; i < WAITING; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, WAITING - i) }, async () => {
        const { id } = await api('POST', `${agent.base}/conversations`, {});
        await api('POST', `${agent.base}/conversations/${id}/handoff`);
      }),
    );
  }
  const paints: number[] = [];
  for (let i = 0; i < LOADS + 2; i += 1) {
    const fresh = await context.newPage();
    await fresh.goto(`${origin}/console#/`);
    const ms = (await fresh.evaluate(INBOX_PAINTED(WAITING + 1))) as number;
    if (i >= 2) paints.push(ms);
    await fresh.close();
  }
  const html = await (await fetch(`${origin}/console`)).text();
  let gzipped = 0;
  for (const [, path] of html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)) {
    gzipped += Number((await fetch(`${origin}${path}`, { headers: { 'accept-encoding': 'gzip' } })).headers.get('content-length') ?? 0);
  }

  console.log(`operator console benchmark — ${cpus().length} cores, ${(totalmem() / 1e9).toFixed(1)} GB, load ${loadavg()[0]!.toFixed(2)}`);
  console.log(
    `${platform.temporalKind}, API and one worker process (runs and turns), Debian's Chromium (headless), a person signed in with a password`,
  );
  console.log(`visitor message (widget API) to visible in the open console (${visible.length} messages): ${stats(visible)} (target p50 < 150 ms)`);
  console.log(
    `${WAITING + 1} conversations waiting: navigation start to the inbox painted (${paints.length} loads): ${stats(paints)} (target < 500 ms)`,
  );
  console.log(`console script and styles: ${gzipped} bytes gzipped (budget 81920)`);
  await cleanUp();
}

main().catch(async (error) => {
  console.error(error);
  await cleanUp();
  process.exit(1);
});
