import { expect } from 'chai';
import { DriverException } from '@mikro-orm/core';
import { databaseUnavailable } from '../../db/database.js';

const withCode = (message: string, code: string, severity?: string) => Object.assign(new Error(message), { code, ...(severity && { severity }) });

describe('databaseUnavailable: PostgreSQL down or restarting, told apart from refused requests', () => {
  it('recognizes a server that cannot be reached, is shutting down or starting up or full, and lost connections', () => {
    const unavailable = [
      withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      new DriverException(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')),
      withCode('terminating connection due to administrator command', '57P01', 'FATAL'),
      withCode('the database system is starting up', '57P03', 'FATAL'),
      withCode('connection failure', '08006', 'FATAL'),
      new DriverException(withCode('sorry, too many clients already', '53300', 'FATAL')),
      new Error('insert into "outbox_events" ... - Connection terminated unexpectedly'),
      new Error('Knex: Timeout acquiring a connection. The pool is probably full. Are you missing a .transacting(trx) call?'),
    ];
    expect(unavailable.filter((e) => !databaseUnavailable(e)).map((e) => e.message)).to.deep.equal([]);
  });

  it('leaves alone what the request itself caused and other failures', () => {
    const others = [
      withCode('duplicate key value violates unique constraint', '23505', 'ERROR'),
      withCode('invalid input syntax: Connection terminated', '22P02', 'ERROR'),
      Object.assign(new TypeError('fetch failed'), { cause: withCode('connect ECONNREFUSED', 'ECONNREFUSED') }),
      new Error('Internal bug'),
      undefined,
      'text',
    ];
    expect(others.filter((e) => databaseUnavailable(e))).to.deep.equal([]);
  });
});
