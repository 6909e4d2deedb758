/**
 * `onceWrites`: a node's writes happen once per node execution although its effect may run again (retries, two
 * attempts at once), and a retry whose effect now fails (its row is gone) answers what the first attempt recorded.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { EntityManager } from '@mikro-orm/postgresql';
import { onceWrites } from '../../db/node-effects/node-effects.js';
import { harness } from '../setup/harness.js';

describe('onceWrites: writes recorded with their output', () => {
  const em = () => harness().orm.em;
  const knex = () => em().getKnex();
  const written = async (key: string) =>
    (await knex().raw('select n from once_writes_probe where key = ? order by n', [key])).rows.map((r: { n: number }) => r.n);
  /** An effect that writes `n` under `key` and answers it, after `delayMs` inside its transaction. */
  const write =
    (key: string, n: number, delayMs = 0) =>
    async (tx: EntityManager) => {
      await tx.getConnection().execute('insert into once_writes_probe (key, n) values (?, ?)', [key, n], 'run', tx.getTransactionContext());
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return { n };
    };

  before(async () => {
    await knex().raw('create table if not exists once_writes_probe (key text not null, n int not null)');
  });
  after(async () => {
    await knex().raw('drop table if exists once_writes_probe');
  });

  it('a later attempt answers the first output and its own writes are rolled back', async () => {
    const key = `test/${randomUUID()}`;
    expect(await onceWrites(em(), key, write(key, 1))).to.deep.equal({ n: 1 });
    expect(await onceWrites(em(), key, write(key, 2))).to.deep.equal({ n: 1 });
    expect(await written(key)).to.deep.equal([1]);
  });

  it('a later attempt whose effect fails answers the first output; a first attempt that fails records nothing', async () => {
    const key = `test/${randomUUID()}`;
    await onceWrites(em(), key, write(key, 1));
    const gone = async () => {
      throw new Error('Record gone');
    };
    expect(await onceWrites(em(), key, gone)).to.deep.equal({ n: 1 });

    const other = `test/${randomUUID()}`;
    const failed = await onceWrites(em(), other, gone).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(failed).to.equal('Record gone');
    expect((await knex().raw('select 1 from node_effects where execution_key = ?', [other])).rows).to.have.length(0);
    expect(await onceWrites(em(), other, write(other, 3))).to.deep.equal({ n: 3 });
  });

  it('two attempts at once write once and answer the same output', async () => {
    const key = `test/${randomUUID()}`;
    const outputs = await Promise.all([onceWrites(em(), key, write(key, 1, 50)), onceWrites(em(), key, write(key, 2, 50))]);
    expect(outputs[0]).to.deep.equal(outputs[1]);
    expect(await written(key)).to.deep.equal([outputs[0]!.n]);
  });
});
