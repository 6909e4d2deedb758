/**
 * The numbers and pages that answer an agent: a bundle names them (never their secrets), and an import lists under
 * `connect` each one not yet answering the imported agent here, with the command that connects it.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { MessagingNumber } from '../channels/messaging-number.entity.js';
import { SocialAccount } from '../channels/social-account.entity.js';
import type { ImportPlan } from './bundle-plan.js';

/** A number (`messaging`: WhatsApp) or a page (`facebook`: Messenger, `instagram`) that answered the agent. */
export interface BundledChannel {
  channel: 'messaging' | 'facebook' | 'instagram';
  /** The phone-number id, the page id or the Instagram account id. */
  id: string;
  name: string;
}

/** The numbers and pages whose messages the agent answers, sorted. */
export async function agentChannels(em: EntityManager, accountId: number, agentId: string): Promise<BundledChannel[]> {
  const [numbers, pages] = await Promise.all([
    em.find(MessagingNumber, { account: accountId, assistantId: agentId }, { orderBy: { phoneNumberId: 'asc' } }),
    em.find(SocialAccount, { account: accountId, assistantId: agentId, messagingId: { $ne: null } }, { orderBy: { messagingId: 'asc' } }),
  ]);
  return [
    ...numbers.map((n): BundledChannel => ({ channel: 'messaging', id: n.phoneNumberId, name: `${n.displayName} (${n.phoneNumber})` })),
    ...pages.map((p): BundledChannel => ({ channel: p.platform === 'INSTAGRAM' ? 'instagram' : 'facebook', id: p.messagingId!, name: p.name })),
  ];
}

/** Lists under `connect` the bundle's numbers and pages that do not answer `agentId` here yet. */
export async function connectChannels(tx: EntityManager, accountId: number, channels: BundledChannel[], agentId: string, plan: ImportPlan) {
  for (const c of channels) {
    const here =
      c.channel === 'messaging'
        ? await tx.count(MessagingNumber, { account: accountId, phoneNumberId: c.id, assistantId: agentId })
        : await tx.count(SocialAccount, { account: accountId, messagingId: c.id, assistantId: agentId });
    if (here) continue;
    const what =
      c.channel === 'messaging' ? `WhatsApp number ${c.name}` : `${c.channel === 'facebook' ? 'Messenger page' : 'Instagram account'} "${c.name}"`;
    plan.connect.push({
      reference: `${c.channel === 'messaging' ? 'messagingNumber' : 'page'}:${c.id}`,
      where: 'agent.channels',
      message:
        `${what} answered this agent there: connect it (or another) here with npm run admin -- channel-settings --account <id> ` +
        `--channel ${c.channel} --id ${c.id} --assistant ${agentId} …`,
    });
  }
}
