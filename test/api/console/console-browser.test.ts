/**
 * The console in Chromium, one person at a time: the sign-in form's error, a whole reply with the keyboard only,
 * hostile text (a visitor's message and name carrying markup) shown as text with no script run, and 360 px wide.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { eventually } from '../../setup/runs.js';
import { ok, type Account } from '../agents/agent-calls.helpers.js';
import { TEST_OUTPUT, visitorsBrowserOrSkip } from '../widget/widget-page.js';
import { conversationPath, rotateSecret, sessionsPath, shopAgent, userHash, widgetCall } from '../widget/widget.helpers.js';
import { consoleUrl, operator, overflow, row, signedIn, signInWith, waitingConversation, type Operator } from './console.helpers.js';

const HOSTILE = `<img src=x onerror="window.__xss = 1"><script>window.__xss = 2</script>`;

describe('operator console in a real browser', function () {
  this.timeout(60_000);
  let browser: Browser;
  let a: Account;
  let ana: Operator;

  before(async function () {
    this.timeout(600_000);
    browser = await visitorsBrowserOrSkip(this);
    a = await newAccount();
    ana = await operator(a, 'Ana');
  });
  after(() => browser?.close());

  it('says "Wrong email or password" for a wrong password and signs in with the right one', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInWith(page, ana.email, 'not-the-password');
    const error = page.getByRole('alert');
    await error.filter({ hasText: 'Wrong email or password' }).waitFor();
    expect(await page.getByLabel('Password').evaluate((node) => node === (globalThis as any).document.activeElement)).to.equal(true);
    await page.keyboard.type(ana.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    expect(await page.title()).to.match(/agentry console$/);
    await context.close();
  });

  it('signs in, opens a waiting conversation and sends a reply with the keyboard only', async () => {
    const waiting = await waitingConversation(a);
    const context = await browser.newContext();
    const page = await context.newPage();
    await signInWith(page, ana.email, ana.password);
    await row(page, waiting.id).waitFor();
    // Tab to the conversation's link, and open it.
    const link = row(page, waiting.id).locator('a.open');
    for (let i = 0; i < 40 && !(await link.evaluate((node) => node === (globalThis as any).document.activeElement)); i++)
      await page.keyboard.press('Tab');
    expect(await link.evaluate((node) => node === (globalThis as any).document.activeElement), 'the link reached by Tab').to.equal(true);
    await page.keyboard.press('Enter');
    await page.getByRole('log', { name: 'Transcript' }).getByText('Hello!').waitFor();
    // The view's heading has the focus; Tab on to the reply box.
    const box = page.getByLabel('Reply', { exact: true });
    for (let i = 0; i < 20 && !(await box.evaluate((node) => node === (globalThis as any).document.activeElement)); i++)
      await page.keyboard.press('Tab');
    expect(await box.evaluate((node) => node === (globalThis as any).document.activeElement), 'the reply box reached by Tab').to.equal(true);
    await page.keyboard.type('First line');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line, from the keyboard');
    await page.keyboard.press('Enter');
    const sent = 'First line\nsecond line, from the keyboard';
    await page.locator('.log .msg.operator .text', { hasText: 'second line' }).waitFor();
    const transcript = await eventually(async () => {
      const t = await ok('GET', waiting.path, a.userKey);
      return t.messages.some((m: { author: string }) => m.author === 'operator') ? t : undefined;
    }, 'the operator message');
    const mine = transcript.messages.filter((m: { author: string }) => m.author === 'operator');
    expect(mine.map((m: { text: string }) => m.text)).to.deep.equal([sent]);
    expect(mine[0].metadata.operator).to.deep.include({ userId: ana.userId, name: 'Ana' });
    expect(await box.inputValue()).to.equal('');
    await context.close();
  });

  it("shows a visitor's markup in the message and the contact's name as text, and runs none of it", async () => {
    const agent = await shopAgent(a);
    const secret = await rotateSecret(a, agent.id);
    const session = await widgetCall('POST', sessionsPath(agent.id), {
      body: { userId: 'visitor-1', userHash: userHash(secret, 'visitor-1'), name: HOSTILE, email: 'visitor@example.test' },
    });
    expect(session.status, JSON.stringify(session.body)).to.equal(201);
    const { token, conversationId } = session.body;
    await ok('POST', `${agent.base}/conversations/${conversationId}/handoff`, a.userKey, undefined, 200);
    const sent = await widgetCall('POST', conversationPath(agent.id, conversationId, '/messages'), { token, body: { text: `Hi ${HOSTILE}` } });
    expect(sent.status).to.equal(200);

    const { context, page } = await signedIn(browser, ana);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await row(page, conversationId).waitFor();
    expect(await row(page, conversationId).locator('.contact').textContent()).to.equal(HOSTILE);
    expect(await row(page, conversationId).locator('.last').textContent()).to.equal(`Visitor: Hi ${HOSTILE}`);
    await row(page, conversationId).locator('a.open').click();
    const message = page.locator('.log .msg.user .text', { hasText: 'Hi <img' });
    await message.waitFor();
    expect(await message.textContent()).to.equal(`Hi ${HOSTILE}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).to.equal(HOSTILE);
    expect(await page.locator('.log .msg.user .author').first().textContent()).to.equal(HOSTILE);
    expect(
      await page.evaluate(() => ({ xss: (globalThis as any).__xss, images: (globalThis as any).document.querySelectorAll('img').length })),
    ).to.deep.equal({
      xss: undefined,
      images: 0,
    });
    expect(errors).to.deep.equal([]);
    await context.close();
  });

  it('finds conversations by text and status from the search view, the filters kept in the address', async () => {
    const waiting = await waitingConversation(a);
    const needle = `needle-${Date.now()}`;
    await ok('POST', `${waiting.path}/operator-messages`, a.userKey, { text: `Your parcel ${needle} left today` });
    const { context, page } = await signedIn(browser, ana);
    await page.getByRole('link', { name: 'All conversations' }).click();
    await page.getByLabel('Text or contact (name, email, number)').fill(needle);
    await page.getByLabel('Status').selectOption('HANDED_OFF');
    await page.getByRole('button', { name: 'Search' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: /^1 conversation$/ })
      .waitFor();
    expect(
      await page
        .getByRole('list', { name: 'Conversations found' })
        .locator('li.conv')
        .evaluateAll((lis) => lis.map((li: any) => li.dataset.id)),
    ).to.deep.equal([waiting.id]);
    expect(new URL(page.url()).hash).to.equal(`#/all?q=${needle}&status=HANDED_OFF`);
    await page.getByLabel('Status').selectOption('ENDED');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No conversation matches.').waitFor();
    await context.close();
  });

  it('lists where one is signed in; "Sign out everywhere" and an expired session send a browser back to the sign-in form', async () => {
    const ben = await operator(a, 'Ben');
    const [here, there] = [await signedIn(browser, ben), await signedIn(browser, ben)];
    await here.page.goto(consoleUrl('#/sessions'));
    await here.page.getByRole('list', { name: 'Your sessions' }).getByRole('listitem').nth(1).waitFor();
    expect(await here.page.getByRole('list', { name: 'Your sessions' }).getByRole('listitem').count()).to.equal(2);
    expect(await here.page.getByText('This browser').count()).to.equal(1);
    await here.page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await here.page.getByText('You are signed out everywhere.').waitFor();
    await here.page.getByLabel('Email').waitFor();
    // The other browser's next call is refused: it shows the form, saying why.
    await there.page.goto(consoleUrl('#/all'));
    await there.page.getByText('Your session has ended. Sign in again.').waitFor();
    expect(await there.page.getByLabel('Password').isVisible()).to.equal(true);
    await here.context.close();
    await there.context.close();

    // A session that expires (its time is up, as SESSION_TTL_HOURS sets it) does the same.
    const later = await signedIn(browser, ben);
    await harness().orm.em.getKnex().raw(`update user_sessions set expires_at = now() where user_id = ? and revoked_at is null`, [ben.userId]);
    await later.page.goto(consoleUrl('#/all'));
    await later.page.getByText('Your session has ended. Sign in again.').waitFor();
    await later.context.close();
  });

  it('fits 360 px: no view scrolls sideways, long words and names included', async () => {
    const long = `${'Unbrokenwordwithoutanyspaces'.repeat(8)} and a normal tail`;
    const waiting = await waitingConversation(a);
    await ok('POST', `${waiting.path}/operator-messages`, a.userKey, { text: long, name: 'Dana' });
    const { context, page } = await signedIn(browser, ana, { width: 360, height: 740 });
    const check = async (view: string, ready: (p: Page) => Promise<unknown>) => {
      await page.goto(consoleUrl(view));
      await ready(page);
      const { scroll, viewport } = await overflow(page);
      expect(scroll, `${view}: content ${scroll} px in a ${viewport} px viewport`).to.be.at.most(viewport);
    };
    await check('#/', (p) => row(p, waiting.id).waitFor());
    await mkdir(TEST_OUTPUT, { recursive: true });
    await page.screenshot({ path: join(TEST_OUTPUT, 'console-inbox-360.png') });
    await check(`#/c/${waiting.agent.id}/${waiting.id}`, (p) => p.locator('.log .msg.operator').waitFor());
    await page.screenshot({ path: join(TEST_OUTPUT, 'console-conversation-360.png') });
    await check('#/all', (p) =>
      p
        .getByRole('status')
        .filter({ hasText: /conversation|matches/ })
        .waitFor(),
    );
    await check('#/sessions', (p) => p.getByRole('button', { name: 'Sign out everywhere' }).waitFor());
    await context.close();
  });
});
