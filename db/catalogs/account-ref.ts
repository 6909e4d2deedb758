import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { Account } from '../accounts/account.entity.js';

/** The account the admin command line connects something to; 404 when it does not exist. */
export async function existingAccount(em: EntityManager, accountId: number): Promise<Account> {
  const account = await em.findOne(Account, { id: accountId });
  if (!account) throw new NotFoundError(`Account ${accountId} not found`);
  return account;
}

/** A trimmed, non-empty text of at most `max` characters, or 400 naming `path`. */
export function requiredText(value: string | undefined, path: string, max = 255): string {
  const text = value?.trim() ?? '';
  if (!text) throw new BadRequestError(`${path} is required`, path);
  if (text.length > max) throw new BadRequestError(`${path} must be at most ${max} characters`, path);
  return text;
}

/** An uppercase code (toolkit, platform): letters, digits and underscores, or 400 naming `path`. */
export function upperCode(value: string | undefined, path: string): string {
  const code = requiredText(value, path, 64).toUpperCase();
  if (!/^[A-Z][A-Z0-9_]*$/.test(code)) throw new BadRequestError(`${path} must be letters, digits and underscores, e.g. GMAIL`, path);
  return code;
}
