import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { dropDatabase, ensureDatabase } from '../../db/database.js';
import { initORM } from '../../db/orm.js';
import { harness } from '../setup/harness.js';

describe('the graph versions migration', function () {
  this.timeout(60_000);

  it('numbers the live snapshots published before it 1, 2, … per owner in the order they were made, and leaves drafts unnumbered', async () => {
    const url = new URL(harness().databaseUrl);
    url.pathname = `/agentry_test_versions_${randomBytes(3).toString('hex')}`;
    await ensureDatabase(url.toString());
    const orm = await initORM({ databaseUrl: url.toString() });
    try {
      await orm.getMigrator().up({ to: 'Migration20261125235900_knowledge_reindex' });
      const knex = orm.em.getKnex();
      const account = (await knex.raw(`insert into accounts (name, namespace, created_at, updated_at) values ('A', 'a', now(), now()) returning id`))
        .rows[0].id;
      const snapshots = [
        ['s-w1-draft', 'WORKFLOW', '1', 'DRAFT', '2026-01-01T00:00:00Z'],
        ['s-w1-b', 'WORKFLOW', '1', 'LIVE', '2026-01-03T00:00:00Z'],
        ['s-w1-a', 'WORKFLOW', '1', 'LIVE', '2026-01-02T00:00:00Z'],
        ['s-f1-a', 'FLOW', '1', 'LIVE', '2026-01-02T12:00:00Z'],
        ['s-w1-c', 'WORKFLOW', '1', 'LIVE', '2026-01-04T00:00:00Z'],
      ];
      for (const [id, ownerType, ownerId, kind, at] of snapshots) {
        await knex.raw(
          `insert into graph_snapshots (id, account_id, owner_type, owner_id, kind, nodes, edges, created_at, updated_at)
           values (?, ?, ?, ?, ?, '[{"nodeId": "n"}]', '[]', ?, ?)`,
          [id, account, ownerType, ownerId, kind, at, at],
        );
      }
      await orm.getMigrator().up();
      const rows = (await knex.raw('select id, version, nodes from graph_snapshots order by id')).rows;
      expect(rows.map((r: { id: string; version: number | null }) => [r.id, r.version])).to.deep.equal([
        ['s-f1-a', 1],
        ['s-w1-a', 1],
        ['s-w1-b', 2],
        ['s-w1-c', 3],
        ['s-w1-draft', null],
      ]);
      expect(
        rows.every((r: { nodes: unknown }) => JSON.stringify(r.nodes) === '[{"nodeId":"n"}]'),
        'the graphs are kept',
      ).to.equal(true);
    } finally {
      await orm.close();
      await dropDatabase(url.toString());
    }
  });
});
