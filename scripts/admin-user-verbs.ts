/**
 * The admin command line's verbs of people signing in: `set-password` (given, from stdin, or generated and printed
 * once) and `set-name` (shown beside their operator messages).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { setPassword, setUserName } from '../db/accounts/passwords.service.js';
import { generatePassword } from '../lib/passwords.js';

type Options = Record<string, string | boolean | undefined>;
type Verb = (em: EntityManager, options: Options) => Promise<{ json: unknown; text: string }>;

export const USER_USAGE = `
  set-password --email EMAIL [--account ID] [--password P|-]
                                               set the password a person signs in to the console with (- reads it
                                               from stdin; none: one is generated and printed once); their sessions
                                               are signed out; --account when the email is in several accounts
  set-name    --email EMAIL [--account ID] --name NAME
                                               the name shown beside their operator messages (default: the email's
                                               part before @)`;

export const USER_OPTIONS = {
  password: { type: 'string' },
  name: { type: 'string' },
} as const;

interface Helpers {
  required: (options: Options, name: string) => string;
  id: (options: Options, name: string) => number;
}

async function passwordOption(options: Options): Promise<string | undefined> {
  const given = typeof options.password === 'string' ? options.password : undefined;
  if (given !== '-') return given;
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.replace(/\r?\n$/, '');
}

export function userVerbs({ required, id }: Helpers): Record<string, Verb> {
  const accountOf = (o: Options) => (o.account === undefined ? undefined : id(o, 'account'));
  return {
    async 'set-password'(em, o) {
      const given = await passwordOption(o);
      const password = given ?? generatePassword();
      const user = await setPassword(em, required(o, 'email'), password, accountOf(o));
      const who = `user ${user.id} ${user.email} (account ${user.account.id})`;
      return {
        json: { user: { id: user.id, email: user.email, accountId: user.account.id }, ...(given === undefined && { password }) },
        text: given === undefined ? `${who}: password set (shown once): ${password}` : `${who}: password set`,
      };
    },
    async 'set-name'(em, o) {
      const user = await setUserName(em, required(o, 'email'), required(o, 'name'), accountOf(o));
      return {
        json: { user: { id: user.id, email: user.email, name: user.name, accountId: user.account.id } },
        text: `user ${user.id} ${user.email}: name "${user.name}"`,
      };
    },
  };
}
