import { randomBytes } from 'node:crypto';

const processRandom = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

/**
 * A 24-hex object identifier: 4 bytes of seconds since the epoch, 5 random bytes per process, 3 bytes of a
 * counter. Ids of one process sort in creation order, which keeps `id` a cheap default sort and tiebreaker.
 */
export function newObjectId(now: Date = new Date()): string {
  counter = (counter + 1) % 0x1000000;
  const seconds = Math.floor(now.getTime() / 1000)
    .toString(16)
    .padStart(8, '0');
  return `${seconds}${processRandom}${counter.toString(16).padStart(6, '0')}`;
}

export const OBJECT_ID_PATTERN = /^[0-9a-f]{24}$/;
