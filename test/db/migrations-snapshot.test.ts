import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { dropDatabase } from '../../db/database.js';
import { migratedDatabase, projectRoot } from '../setup/harness.js';

const snapshot = `${projectRoot}/db/migrations/schema-snapshot.json`;
const digest = () => createHash('sha256').update(readFileSync(snapshot)).digest('hex');
// Taken when mocha loads this file, before the root hook migrates the suite's own database.
const atLoad = digest();

describe('migrations', function () {
  this.timeout(60_000);

  it('running them on a new database (as the first npm start does) leaves the tracked schema snapshot unchanged', async () => {
    const { databaseUrl, orm } = await migratedDatabase();
    await orm.close();
    await dropDatabase(databaseUrl);
    expect(digest()).to.equal(atLoad);
  });
});
