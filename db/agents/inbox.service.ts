/**
 * The operator inbox's reading side (issue 46): the account's conversations as the console lists them, each with
 * its agent, contact, last message, wait, claim, the caller's unread count and who has it open. One statement reads a
 * page or one conversation; keyset pages walk the account's indexes (newest message first, or newest wait first
 * among the handed-off), so a page costs the same at thousands of conversations.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError } from '../../lib/errors.js';
import type { ConversationStatus } from './conversation.entity.js';

/** How long a presence (`PUT .../presence`) counts: the console renews it every 10 s while a conversation is open. */
export const PRESENCE_SECONDS = 30;

/** The name shown for a user: their name (users.name, console-auth), else the part of their email before the @. */
export const userNameSql = (alias: string) => `coalesce(${alias}.name, split_part(${alias}.email, '@', 1))`;

export interface InboxClaim {
  userId: number;
  name: string;
  email: string;
  claimedAt: string;
}

export interface InboxViewer {
  userId: number;
  name: string;
  typing: boolean;
}

/** A conversation as the operator console shows it in its list and header. */
export interface InboxConversation {
  id: string;
  agentId: string;
  agentName: string;
  channel: string;
  status: ConversationStatus;
  contact: { name: string | null; email: string | null; externalId: string | null };
  startedAt: string;
  lastMessageAt: string;
  lastMessage: { id: string; author: string; text: string; createdAt: string } | null;
  waitingSince: string | null;
  handoffs: number;
  claim: InboxClaim | null;
  unread: number;
  viewers: InboxViewer[];
}

/** An inbox conversation read, with what a stream needs beside it: when its first viewer's presence lapses. */
export interface InboxRow {
  conversation: InboxConversation;
  /** The earliest end of a viewer's presence; null without viewers. */
  presenceEndsAt: Date | null;
}

export interface InboxFilter {
  limit: number;
  cursor?: string;
  /** HANDED_OFF only, newest wait first. */
  waiting?: boolean;
  status?: ConversationStatus;
  channel?: string;
  agentId?: string;
  /** Text in the messages or the contact's name, email or external id (case-insensitive). */
  q?: string;
}

const iso = (value: unknown): string => new Date(value as string).toISOString();
/** A timestamp at full (microsecond) precision, as keyset cursors must compare it. */
const exact = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

const SELECT = `
  select c.id, c.agent_id, a.name as agent_name, c.channel, c.status, c.contact_name, c.contact_email,
    coalesce(c.visitor_id, c.network_user_id) as external_id, c.started_at, c.last_message_at, c.waiting_since, c.handoffs,
    c.claimed_by_id, c.claimed_at, cu.email as claim_email, ${userNameSql('cu')} as claim_name,
    lm.id as lm_id, lm.author as lm_author, lm.text as lm_text, lm.created_at as lm_created_at,
    ${exact('c.last_message_at')} as last_key, ${exact('c.waiting_since')} as waiting_key,
    (select count(*) from conversation_messages m where m.conversation_id = c.id and m.author = 'user'
      and m.id > coalesce((select r.read_message_id from conversation_viewers r where r.conversation_id = c.id and r.user_id = :me), 0))::int as unread,
    (select coalesce(json_agg(json_build_object('userId', v.user_id, 'name', ${userNameSql('vu')}, 'typing', v.typing) order by v.user_id), '[]'::json)
       from conversation_viewers v join users vu on vu.id = v.user_id where v.conversation_id = c.id and v.present_until > now()) as viewers,
    (select min(v.present_until) from conversation_viewers v where v.conversation_id = c.id and v.present_until > now()) as presence_ends_at
  from conversations c
  join agents a on a.id = c.agent_id and a.deleted_at is null
  left join users cu on cu.id = c.claimed_by_id
  left join lateral (select m.id, m.author, m.text, m.created_at from conversation_messages m
    where m.conversation_id = c.id order by m.id desc limit 1) lm on true
  where c.account_id = :account`;

function rowView(row: Record<string, any>): InboxRow {
  const handedOff = row.status === 'HANDED_OFF';
  return {
    conversation: {
      id: row.id,
      agentId: row.agent_id,
      agentName: row.agent_name,
      channel: row.channel,
      status: row.status,
      contact: { name: row.contact_name ?? null, email: row.contact_email ?? null, externalId: row.external_id ?? null },
      startedAt: iso(row.started_at),
      lastMessageAt: iso(row.last_message_at),
      lastMessage: row.lm_id ? { id: String(row.lm_id), author: row.lm_author, text: row.lm_text, createdAt: iso(row.lm_created_at) } : null,
      waitingSince: handedOff && row.waiting_since ? iso(row.waiting_since) : null,
      handoffs: row.handoffs,
      claim: row.claimed_by_id ? { userId: row.claimed_by_id, name: row.claim_name, email: row.claim_email, claimedAt: iso(row.claimed_at) } : null,
      unread: row.unread,
      viewers: row.viewers,
    },
    presenceEndsAt: row.presence_ends_at ? new Date(row.presence_ends_at) : null,
  };
}

/** The inbox conversations among `ids` of the account, as user `userId` sees them (unread counts are theirs). */
export async function readInboxConversations(em: EntityManager, accountId: number, userId: number | null, ids: string[]): Promise<InboxRow[]> {
  if (!ids.length) return [];
  const rows = await em
    .getKnex()
    .raw(`${SELECT} and c.id = any(:ids::uuid[])`, { account: accountId, me: userId ?? -1, ids: ids.map((id) => id.toLowerCase()) });
  return (rows.rows as Record<string, unknown>[]).map(rowView);
}

/** One inbox conversation; undefined when the account has none of that id (or its agent is deleted). */
export async function readInboxConversation(em: EntityManager, accountId: number, userId: number | null, id: string) {
  return (await readInboxConversations(em, accountId, userId, [id]))[0]?.conversation;
}

interface Cursor {
  key: string;
  id: string;
}

const encodeCursor = (kind: 'l' | 'w', key: string, id: string) => Buffer.from(`${kind}:${key}|${id}`).toString('base64url');

function decodeCursor(cursor: string, kind: 'l' | 'w'): Cursor {
  const match = /^([lw]):(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z)\|([0-9a-f-]{36})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match || match[1] !== kind)
    throw new BadRequestError('Invalid cursor', [
      { code: 'invalid', path: 'query.cursor', message: 'is not a nextCursor of this list (with these filters)' },
    ]);
  return { key: match[2]!, id: match[3]! };
}

/** `%text%` for ILIKE, with its wildcards taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The account's conversations, all agents: newest message first, or with `waiting` the handed-off ones newest wait
 * first; filtered by status, channel, agent and text; keyset paginated.
 */
export async function listInboxConversations(em: EntityManager, accountId: number, userId: number | null, filter: InboxFilter) {
  if (filter.waiting && filter.status && filter.status !== 'HANDED_OFF') {
    throw new BadRequestError('waiting=true lists HANDED_OFF conversations only', [
      { code: 'invalid', path: 'query.status', message: 'must be HANDED_OFF (or left out) with waiting=true' },
    ]);
  }
  const kind = filter.waiting ? 'w' : 'l';
  const column = filter.waiting ? 'c.waiting_since' : 'c.last_message_at';
  const after = filter.cursor ? decodeCursor(filter.cursor, kind) : undefined;
  const status = filter.waiting ? 'HANDED_OFF' : filter.status;
  const bindings: Record<string, unknown> = { account: accountId, me: userId ?? -1, limit: filter.limit + 1 };
  const where: string[] = [];
  if (status) {
    where.push('c.status = :status');
    bindings.status = status;
  }
  if (filter.channel) {
    where.push('c.channel = :channel');
    bindings.channel = filter.channel;
  }
  if (filter.agentId) {
    where.push('c.agent_id = :agentId');
    bindings.agentId = filter.agentId.toLowerCase();
  }
  if (filter.q) {
    // The messages matching, as a set of the account's (a trigram index finds them where pg_trgm is installed).
    where.push(`(c.contact_name ilike :q or c.contact_email ilike :q or c.visitor_id ilike :q or c.network_user_id ilike :q
      or c.id in (select m.conversation_id from conversation_messages m where m.account_id = :account and m.text ilike :q))`);
    bindings.q = containing(filter.q);
  }
  if (after) {
    where.push(`(${column}, c.id) < (:afterKey::timestamptz, :afterId::uuid)`);
    Object.assign(bindings, { afterKey: after.key, afterId: after.id });
  }
  const sql = `${SELECT}${where.map((w) => ` and ${w}`).join('')} order by ${column} desc, c.id desc limit :limit`;
  const rows = (await em.getKnex().raw(sql, bindings)).rows as Record<string, any>[];
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  return {
    agentry: page.map((row) => rowView(row).conversation),
    nextCursor: rows.length > filter.limit && last ? encodeCursor(kind, filter.waiting ? last.waiting_key : last.last_key, last.id) : null,
  };
}
