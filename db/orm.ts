/**
 * MikroORM set-up: one place that knows how the ORM is configured. Entry points call `initORM` with the
 * database URL from `loadConfig()`; the schema changes only through migrations, never by sync at boot.
 */
import { MikroORM, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities.js';
import { migrationsList } from './migrations/index.js';

export type Orm = MikroORM;

export interface OrmOptions {
  databaseUrl: string;
  /** Largest number of pooled connections of this process. */
  poolMax?: number;
  /**
   * Whether the migrator keeps `db/migrations/schema-snapshot.json` (only `npm run migration:create` does: running
   * migrations must not rewrite a tracked file).
   */
  snapshot?: boolean;
}

/** The ORM options, shared by `initORM` and the migration generator. */
export function ormOptions({ databaseUrl, poolMax = 10, snapshot = false }: OrmOptions): Options {
  return {
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    pool: { min: 0, max: poolMax },
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: 'db/migrations',
      emit: 'ts',
      snapshot,
      snapshotName: 'schema-snapshot',
      transactional: true,
      allOrNothing: true,
      silent: true,
      migrationsList,
    },
    debug: false,
    allowGlobalContext: false,
  };
}

/** Connects to PostgreSQL. Does not change the schema: call `migrate(orm)` for that. */
export async function initORM(options: OrmOptions): Promise<Orm> {
  return MikroORM.init(ormOptions(options));
}

/** Applies every pending migration; returns the names applied. Safe to run from several processes at once. */
export async function migrate(orm: Orm): Promise<string[]> {
  // Serialize concurrent starts (API and worker, or several replicas) on one advisory lock held by this
  // transaction; the migrator runs its own transaction on another pooled connection meanwhile.
  return orm.em.fork().transactional(async (em) => {
    await em.getConnection().execute('select pg_advisory_xact_lock(7263541)');
    const applied = await orm.getMigrator().up();
    return applied.map((m) => m.name);
  });
}
