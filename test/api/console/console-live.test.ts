/**
 * The console live, in Chromium, with the rest of the platform real: a WhatsApp conversation (the local Meta server)
 * handed off by the AI shows up in an open inbox within a second and is answered from the console, the reply reaching
 * the Send API once; two people on one conversation (a claim, seen by the other, who cannot answer over it unaware
 * and takes it over explicitly); a widget visitor and a person chatting both ways.
 */
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { quiet, undispatchedEvents } from '../../setup/quiet.js';
import { eventually } from '../../setup/runs.js';
import { FakeMetaServer, deliver, whatsAppMessage } from '../../setup/fake-meta-server.js';
import { DEFAULT_HANDOFF_MESSAGE } from '../../../activities/handoff.activity.js';
import { ok, type Account } from '../agents/agent-calls.helpers.js';
import { connectedAgent, conversationsOf, messageId, person } from '../channels/channels.helpers.js';
import { hostSite, visitorsBrowserOrSkip, type HostSite } from '../widget/widget-page.js';
import { shopAgent } from '../widget/widget.helpers.js';
import { consoleUrl, operator, row, signedIn, waitingConversation, type Operator } from './console.helpers.js';

const operatorTexts = async (a: Account, path: string) =>
  ((await ok('GET', path, a.userKey)).messages as { author: string; text: string }[]).filter((m) => m.author === 'operator').map((m) => m.text);

describe('operator console, live', function () {
  this.timeout(60_000);
  let browser: Browser;
  let a: Account;
  let ana: Operator;
  let ben: Operator;
  const meta = new FakeMetaServer();

  before(async function () {
    this.timeout(600_000);
    browser = await visitorsBrowserOrSkip(this);
    await meta.start();
    a = await newAccount();
    [ana, ben] = [await operator(a, 'Ana'), await operator(a, 'Ben')];
  });
  after(async () => {
    await browser?.close();
    await meta.stop();
  });

  it('a WhatsApp conversation the AI hands off shows up in the open inbox within a second; the reply reaches the Send API once', async () => {
    const whatsApp = await connectedAgent('messaging', meta.baseUrl, { a });
    await ok('PUT', `${whatsApp.agent.base}/agent-setting`, a.userKey, { systemToolSettings: { handoffToHuman: true } }, 200);
    const { context, page } = await signedIn(browser, ana);
    // When each row shows up in the waiting list, by the page's clock (the machine's, as the API's).
    await page.evaluate(() => {
      const page = globalThis as any;
      const seen: Record<string, number> = (page.__seen = {});
      new page.MutationObserver(() => {
        for (const li of page.document.querySelectorAll('.waiting li.conv')) seen[li.dataset.id] ??= Date.now();
      }).observe(page.document.body, { childList: true, subtree: true });
    });

    const from = person();
    harness().ai.script(
      { toolCalls: [{ name: 'handoff_to_human', arguments: { reason: 'asks for a person' } }] },
      { content: 'Let me find a colleague.' },
    );
    const res = await deliver(
      harness().origin,
      'messaging',
      whatsAppMessage(whatsApp.networkId, from, messageId(), { text: 'I want to talk to a person' }),
      whatsApp.appSecret,
    );
    expect(res.status).to.equal(200);
    await meta.waitFor(from, 2);
    const [conversation] = await conversationsOf(whatsApp);
    const path = `${whatsApp.agent.base}/conversations/${conversation.id}`;
    await row(page, conversation.id).waitFor({ timeout: 5000 });
    const inbox = await ok('GET', `${path}/inbox`, ana.key);
    expect(inbox).to.deep.include({ status: 'HANDED_OFF', channel: 'messaging' });
    const shownAt = await page.evaluate((id) => (globalThis as any).__seen[id] as number, conversation.id);
    const ms = shownAt - Date.parse(inbox.waitingSince);
    console.log(`      handed off to shown in the inbox: ${ms} ms`);
    expect(ms).to.be.below(1000);
    expect(await row(page, conversation.id).locator('.meta').textContent()).to.match(/^WhatsApp · /);
    expect(await page.title()).to.match(/^\(\d+\) agentry console$/);

    await row(page, conversation.id).locator('a.open').click();
    await page.locator('.log .msg.user .text', { hasText: 'I want to talk to a person' }).waitFor();
    await page
      .locator('.log .msg.agent .delivery', { hasText: /Sent|Delivered|Read/ })
      .first()
      .waitFor();
    // The AI's tool call, as a note before its reply; the status changes as notes too.
    const items = await page
      .locator('.log > li')
      .evaluateAll((lis) => lis.map((li: any) => `${li.className}: ${li.querySelector('.text')?.textContent ?? li.textContent}`));
    expect(items.slice(0, 3)).to.deep.equal([
      'msg user: I want to talk to a person',
      'note tool: The agent called handoff_to_human {"reason":"asks for a person"}',
      'msg agent: Let me find a colleague.',
    ]);
    const reply = 'Hello Kerry, Ana here. How can I help?';
    await page.getByLabel('Reply', { exact: true }).fill(reply);
    await page.keyboard.press('Enter');
    const sent = await meta.waitFor(from, 3);
    expect(sent.map(FakeMetaServer.textOf)).to.deep.equal(['Let me find a colleague.', DEFAULT_HANDOFF_MESSAGE, reply]);
    await page.locator('.log .msg.operator .delivery', { hasText: /Sent|Delivered|Read/ }).waitFor();
    const settled = await quiet(() => meta.sentTo(from).length, { busy: [undispatchedEvents(a.account.id)] });
    expect(settled, 'one Send API call for the reply').to.equal(3);
    expect(await operatorTexts(a, path)).to.deep.equal([reply]);
    await context.close();
  });

  it('two people: one takes the conversation, the other sees it, cannot answer over it unaware, and takes it over explicitly', async () => {
    const waiting = await waitingConversation(a);
    const hash = `#/c/${waiting.agent.id}/${waiting.id}`;
    const [first, second] = [await signedIn(browser, ana), await signedIn(browser, ben)];
    for (const { page } of [first, second]) await page.goto(consoleUrl(hash));
    await first.page.getByText('Waiting for a person: nobody has taken it yet.').waitFor();
    await second.page.locator('.people', { hasText: 'Also open by Ana' }).waitFor();

    await first.page.getByRole('button', { name: 'Take over', exact: true }).click();
    await first.page.getByText('You are answering this conversation.').waitFor();
    await second.page.locator('.claimbar', { hasText: `Ana (${ana.email}) is answering this conversation` }).waitFor();
    await first.page.getByLabel('Reply', { exact: true }).pressSequentially('Let me check');
    await second.page.locator('.people', { hasText: 'Ana is typing' }).waitFor();

    // Ben writes anyway: refused, said plainly, nothing sent.
    await second.page.getByLabel('Reply', { exact: true }).fill('Ben here, I can help');
    await second.page.keyboard.press('Enter');
    const conflict = second.page.locator('.conflict[role=alert]');
    await conflict.filter({ hasText: 'Ana' }).waitFor();
    expect(await operatorTexts(a, waiting.path)).to.deep.equal([]);
    expect(await second.page.getByLabel('Reply', { exact: true }).inputValue()).to.equal('Ben here, I can help');

    await conflict.getByRole('button', { name: 'Take over anyway' }).click();
    await second.page.locator('.log .msg.operator .text', { hasText: 'Ben here, I can help' }).waitFor();
    await second.page.getByText('You are answering this conversation.').waitFor();
    await first.page.locator('.log .msg.operator .text', { hasText: 'Ben here, I can help' }).waitFor();
    await first.page.locator('.claimbar', { hasText: `Ben (${ben.email}) is answering this conversation` }).waitFor();
    expect(await operatorTexts(a, waiting.path)).to.deep.equal(['Ben here, I can help']);
    const claim = (await ok('GET', `${waiting.path}/inbox`, ana.key)).claim;
    expect(claim).to.deep.include({ userId: ben.userId });
    await first.context.close();
    await second.context.close();
  });

  it('a widget visitor and a person chat live, both ways', async () => {
    let site: HostSite | undefined;
    try {
      site = await hostSite();
      const agent = await shopAgent(a);
      const visitorContext = await browser.newContext();
      const visitor = await visitorContext.newPage();
      await visitor.goto(site.page(harness().origin, agent.id));
      await visitor.locator('.launcher').click();
      await visitor.locator('.log .message').first().waitFor();
      const { conversationId } = await visitor.evaluate(
        (key) => JSON.parse((globalThis as any).localStorage.getItem(key)),
        `agentry-widget:${agent.id}`,
      );
      await ok('POST', `${agent.base}/conversations/${conversationId}/handoff`, a.userKey, undefined, 200);
      const { context, page } = await signedIn(browser, ana);
      await row(page, conversationId).locator('a.open').click();
      await page.locator('.log .msg.agent .text', { hasText: 'Welcome to the shop!' }).waitFor();

      await visitor.locator('textarea').fill('Is anyone there?');
      await visitor.keyboard.press('Enter');
      await page.locator('.log .msg.user .text', { hasText: 'Is anyone there?' }).waitFor();
      await page.getByLabel('Reply', { exact: true }).fill('Yes, Ana here.');
      await page.keyboard.press('Enter');
      const bubble = visitor.locator('.message.operator', { hasText: 'Yes, Ana here.' });
      await bubble.waitFor();
      expect(await bubble.locator('.who').textContent()).to.equal('Ana');
      await visitor.locator('textarea').fill('Great, thanks');
      await visitor.keyboard.press('Enter');
      await page.locator('.log .msg.user .text', { hasText: 'Great, thanks' }).waitFor();
      await eventually(async () => {
        const row = await ok('GET', `${agent.base}/conversations/${conversationId}/inbox`, ana.key);
        return row.lastMessage?.text === 'Great, thanks' ? row : undefined;
      }, 'the inbox row');
      await context.close();
      await visitorContext.close();
    } finally {
      await site?.close();
    }
  });
});
