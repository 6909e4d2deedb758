/**
 * What users of the account do to a conversation in the operator console (issue 46): claim it (the first to take it
 * over holds it; another takes it over only explicitly), release it, say they have it open or are typing (a presence
 * fresh for PRESENCE_SECONDS), and mark what they have read. Each is one short statement or one transaction holding
 * the conversation's row, so two users claiming at once are served one after the other: exactly one wins.
 */
import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError, ConversationClaimedError, NotFoundError } from '../../lib/errors.js';
import { PRESENCE_SECONDS, userNameSql, type InboxClaim } from './inbox.service.js';

interface ClaimedRow {
  id: string;
  status: string;
  claimed_by_id: number | null;
  claimed_at: string | null;
  claim_email: string | null;
  claim_name: string | null;
}

async function readClaim(knex: Knex, conversationId: string, trx?: Knex.Transaction): Promise<ClaimedRow | undefined> {
  const query = knex.raw(
    `select c.id, c.status, c.claimed_by_id, c.claimed_at, u.email as claim_email, ${userNameSql('u')} as claim_name
       from conversations c left join users u on u.id = c.claimed_by_id where c.id = ?`,
    [conversationId],
  );
  return (await (trx ? query.transacting(trx) : query)).rows[0] as ClaimedRow | undefined;
}

function claimedError(row: ClaimedRow): ConversationClaimedError {
  const claim: InboxClaim = {
    userId: row.claimed_by_id!,
    name: row.claim_name!,
    email: row.claim_email!,
    claimedAt: new Date(row.claimed_at!).toISOString(),
  };
  return new ConversationClaimedError(`${claim.name} (${claim.email}) is answering this conversation since ${claim.claimedAt}`, { claim });
}

/**
 * Gives the handed-off conversation's claim to `userId`: held by nobody or by them already, or by another user with
 * `takeOver`. Held by another without `takeOver`: 409 `conversation_claimed` naming the holder. Not handed off: 409.
 */
export async function claimConversation(em: EntityManager, conversationId: string, userId: number, takeOver: boolean): Promise<void> {
  await em.transactional(async (tx) => {
    const knex = tx.getKnex();
    const trx = tx.getTransactionContext();
    // The row first, alone: a lock that waited for another claim reads that claim, which a join would not see.
    await knex.raw(`select 1 from conversations where id = ? for update`, [conversationId]).transacting(trx);
    const row = await readClaim(knex, conversationId, trx);
    if (!row) throw new NotFoundError(`Conversation ${conversationId} not found`);
    if (row.status !== 'HANDED_OFF') {
      throw new ConflictError(
        `Conversation ${conversationId} is ${row.status === 'ENDED' ? 'ended' : 'not handed off to a person (the agent answers it)'}`,
      );
    }
    if (row.claimed_by_id === userId) return;
    if (row.claimed_by_id !== null && !takeOver) throw claimedError(row);
    await knex.raw(`update conversations set claimed_by_id = ?, claimed_at = now() where id = ?`, [userId, conversationId]).transacting(trx);
  });
}

/**
 * Releases the caller's claim; a conversation nobody holds is answered as it is. Another user's claim is not the
 * caller's to release: 409 `conversation_claimed` (take it over first).
 */
export async function releaseConversation(em: EntityManager, conversationId: string, userId: number): Promise<void> {
  const knex = em.getKnex();
  const released = await knex.raw(
    `update conversations set claimed_by_id = null, claimed_at = null where id = ? and claimed_by_id = ? returning id`,
    [conversationId, userId],
  );
  if (released.rows.length) return;
  const row = await readClaim(knex, conversationId);
  if (row?.claimed_by_id != null && row.claimed_by_id !== userId) throw claimedError(row);
}

/** The user has the conversation open (fresh for PRESENCE_SECONDS), typing or not. */
export async function markPresent(em: EntityManager, accountId: number, conversationId: string, userId: number, typing: boolean): Promise<void> {
  await em.getKnex().raw(
    `insert into conversation_viewers (conversation_id, user_id, account_id, present_until, typing, updated_at)
     values (?, ?, ?, now() + make_interval(secs => ?), ?, now())
     on conflict (conversation_id, user_id) do update set present_until = excluded.present_until, typing = excluded.typing, updated_at = now()`,
    [conversationId, userId, accountId, PRESENCE_SECONDS, typing],
  );
}

/** The user closed the conversation: no longer a viewer, not typing. */
export async function markAbsent(em: EntityManager, conversationId: string, userId: number): Promise<void> {
  await em
    .getKnex()
    .raw(`update conversation_viewers set present_until = null, typing = false, updated_at = now() where conversation_id = ? and user_id = ?`, [
      conversationId,
      userId,
    ]);
}

/** The user has read the conversation up to message `messageId` (of that conversation); the mark never moves backwards. */
export async function markRead(em: EntityManager, accountId: number, conversationId: string, userId: number, messageId: string): Promise<void> {
  const written = await em.getKnex().raw(
    `insert into conversation_viewers (conversation_id, user_id, account_id, read_message_id, updated_at)
     select m.conversation_id, ?, ?, m.id, now() from conversation_messages m where m.id = ? and m.conversation_id = ?
     on conflict (conversation_id, user_id) do update
       set read_message_id = greatest(conversation_viewers.read_message_id, excluded.read_message_id), updated_at = now()
     returning 1`,
    [userId, accountId, messageId, conversationId],
  );
  if (!written.rows.length) {
    throw new BadRequestError(`Message ${messageId} is not a message of conversation ${conversationId}`, [
      { code: 'not_found', path: 'messageId', message: `no message ${messageId} in this conversation` },
    ]);
  }
}
