/** People of an account signed in to the console in Chromium, and conversations waiting for them. */
import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createUser } from '../../../db/accounts/accounts.service.js';
import { setPassword, setUserName } from '../../../db/accounts/passwords.service.js';
import { issueUserKey } from '../../../db/accounts/api-keys.service.js';
import { harness } from '../../setup/harness.js';
import { ok, type Account } from '../agents/agent-calls.helpers.js';
import { startConversation, talkingAgent, type TalkingAgent } from '../agents/conversation.helpers.js';

export interface Operator {
  userId: number;
  email: string;
  password: string;
  name: string;
  /** A USER key of this person, for the calls a test makes as them. */
  key: string;
}

export const consoleUrl = (hash = '') => `${harness().origin}/console${hash}`;

/** A new person of account `a` named `name`, with a password. */
export async function operator(a: Account, name: string): Promise<Operator> {
  const em = harness().orm.em.fork();
  const email = `${name.toLowerCase()}-${randomBytes(3).toString('hex')}@example.test`;
  const user = await createUser(em, a.account.id, email);
  const password = `pw-${randomBytes(8).toString('hex')}`;
  await setPassword(em, email, password, a.account.id);
  await setUserName(em, email, name, a.account.id);
  const key = await em.transactional((tx) => issueUserKey(tx, user.id));
  return { userId: user.id, email, password, name, key: key.key };
}

/** Fills and sends the sign-in form with the keyboard (the form focuses the email field itself). */
export async function signInWith(page: Page, email: string, password: string): Promise<void> {
  await page.goto(consoleUrl());
  await page.getByLabel('Email').waitFor();
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
}

/** A browser context of its own (its own cookie) signed in as `who`, on the inbox. */
export async function signedIn(
  browser: Browser,
  who: Operator,
  viewport = { width: 1100, height: 800 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport });
  // Everything the tests wait for comes within a second or two: a wait that fails, fails fast.
  context.setDefaultTimeout(10_000);
  const page = await context.newPage();
  await signInWith(page, who.email, who.password);
  await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
  return { context, page };
}

/** A conversation of a new agent of `a`, through the API, handed off: it waits for a person. */
export async function waitingConversation(a: Account, agent?: TalkingAgent): Promise<{ agent: TalkingAgent; id: string; path: string }> {
  agent ??= await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
  const { id } = await startConversation(a, agent);
  const path = `${agent.base}/conversations/${id}`;
  await ok('POST', `${path}/handoff`, a.userKey, undefined, 200);
  return { agent, id, path };
}

/** The row of conversation `id` in the page's lists. */
export const row = (page: Page, id: string) => page.locator(`li.conv[data-id="${id}"]`);

/** Widest content of the page against its viewport: nothing may stick out sideways. */
export const overflow = (page: Page) =>
  page.evaluate(() => {
    const root = (globalThis as any).document.documentElement;
    return { scroll: root.scrollWidth as number, viewport: root.clientWidth as number };
  });
