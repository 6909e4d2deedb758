/**
 * Password hashing with scrypt (Node's own crypto). A hash carries its parameters and salt,
 * `scrypt$N$r$p$<salt>$<hash>` (base64url), so the cost can be raised later without breaking stored hashes.
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) => scryptCallback(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))));

/** OWASP's scrypt minimum (N = 2^17 would cost 128 MiB a sign-in); about 50 ms on one core. */
const COST = { N: 16384, r: 8, p: 1 };
const KEY_LENGTH = 32;
const HASH = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

/** Shortest password a person may choose. */
export const MIN_PASSWORD_LENGTH = 10;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { ...COST, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${COST.N}$${COST.r}$${COST.p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** A hash of no one's password: checked when the email is unknown, so the answer takes as long as a wrong password's. */
let dummy: Promise<string> | undefined;
export const dummyHash = (): Promise<string> => (dummy ??= hashPassword(randomBytes(16).toString('base64url')));

/** True when `password` is the one `stored` was made from; false for a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = HASH.exec(stored);
  if (!match) return false;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const expected = Buffer.from(match[5]!, 'base64url');
  const key = await scrypt(password, Buffer.from(match[4]!, 'base64url'), expected.length, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A password for a person to type once and change: 16 characters of base64url (96 bits). */
export const generatePassword = (): string => randomBytes(12).toString('base64url');
