/** Agents connected to WhatsApp, Messenger and Instagram for the tests: a fresh account, an intent flow, a connection. */
import { randomBytes } from 'node:crypto';
import { connectMessagingNumber, addSocialAccount } from '../../../db/channels/numbers-and-pages.service.js';
import { setChannelSettings } from '../../../db/channels/network-accounts.service.js';
import type { MetaChannel } from '../../../lib/channels/meta-protocol.js';
import { SecretBox } from '../../../lib/secret-box.js';
import { harness, TEST_SETTINGS_KEY } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { intent, intentFlow, talkingAgent, type TalkingAgent } from '../agents/conversation.helpers.js';
import { ok, type Account } from '../agents/agent-calls.helpers.js';

export const HOURS_REPLY = 'We are open from 9 to 5, Monday to Friday.';
export const HOURS_QUESTION = 'what are your opening hours';

export interface ConnectedAgent {
  a: Account;
  agent: TalkingAgent;
  channel: MetaChannel;
  /** The phone-number id, page id or Instagram account id. */
  networkId: string;
  verifyToken: string;
  appSecret: string;
  accessToken: string;
}

const digits = () =>
  String(BigInt(`0x${randomBytes(6).toString('hex')}`))
    .padStart(15, '1')
    .slice(0, 15);

/**
 * A new account whose agent answers "opening hours" with HOURS_REPLY through an intent flow (no AI call), connected
 * to `channel` with its own app secret, verify token and access token, sending through `sendApiUrl`.
 */
export async function connectedAgent(
  channel: MetaChannel,
  sendApiUrl: string,
  options: { a?: Account; greeting?: boolean } = {},
): Promise<ConnectedAgent> {
  const a = options.a ?? (await newAccount());
  const agent = await talkingAgent(a, options.greeting ? [{ type: 'SAY_AI', data: { message: 'Welcome to Acme!' } }] : []);
  const hours = await intent(a, agent, 'opening hours', [HOURS_QUESTION, 'when are you open', 'what time do you open']);
  await intentFlow(a, agent, 'Hours', [hours], [{ type: 'SAY_AI', data: { message: HOURS_REPLY } }]);
  await ok('PUT', `${agent.base}/settings/${channel}`, a.userKey, { enabled: true });
  const em = harness().orm.em.fork();
  const networkId = digits();
  if (channel === 'messaging') {
    await connectMessagingNumber(em, a.account.id, { phoneNumber: `+1555${networkId.slice(0, 7)}`, phoneNumberId: networkId, assistantId: agent.id });
  } else {
    await addSocialAccount(em, a.account.id, { platform: channel === 'facebook' ? 'FACEBOOK' : 'INSTAGRAM', name: 'Acme', externalId: networkId });
  }
  const secrets = {
    verifyToken: `verify-${randomBytes(4).toString('hex')}`,
    appSecret: randomBytes(16).toString('hex'),
    accessToken: `EAAG${randomBytes(8).toString('hex')}`,
  };
  await setChannelSettings(em, SecretBox.fromKey(TEST_SETTINGS_KEY), a.account.id, channel, networkId, {
    agentId: agent.id,
    ...secrets,
    baseUrl: sendApiUrl,
  });
  return { a, agent, channel, networkId, ...secrets };
}

/** The agent's conversations on the channel (newest first). */
export async function conversationsOf(c: ConnectedAgent): Promise<any[]> {
  return (await ok('GET', `${c.agent.base}/conversations?channel=${c.channel}`, c.a.userKey)).agentry;
}

/** A conversation's transcript. */
export async function transcriptOf(c: ConnectedAgent, conversationId: string): Promise<any> {
  return ok('GET', `${c.agent.base}/conversations/${conversationId}`, c.a.userKey);
}

export const person = () => `4477${digits().slice(0, 9)}`;
export const messageId = (prefix = 'wamid.in') => `${prefix}.${randomBytes(8).toString('hex')}`;
