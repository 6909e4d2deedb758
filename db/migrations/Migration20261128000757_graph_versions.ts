import { Migration } from '@mikro-orm/migrations';

/**
 * Every publish is a numbered version of its flow or workflow (who published it, an optional message); runs record
 * the snapshot they executed and agent messages the version of their flow. The live snapshots published before are
 * numbered 1, 2, … per owner in the order they were made, so nothing earlier is lost.
 */
export class Migration20261128000757_graph_versions extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "workflow_runs" add column "snapshot_id" text null;`);

    this.addSql(`alter table "conversation_messages" add column "flow_version" int null;`);

    this.addSql(`alter table "graph_snapshots" add column "version" int null, add column "message" text null, add column "published_by" jsonb null;`);
    this.addSql(`update "graph_snapshots" s set "version" = n."version"
      from (select "id", row_number() over (partition by "owner_type", "owner_id" order by "created_at", "id") as "version"
              from "graph_snapshots" where "kind" = 'LIVE') n
     where s."id" = n."id";`);
    this.addSql(`create unique index "graph_snapshots_version_unique" on "graph_snapshots" ("owner_type", "owner_id", "version") where "version" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "workflow_runs" drop column "snapshot_id";`);

    this.addSql(`alter table "conversation_messages" drop column "flow_version";`);

    this.addSql(`drop index "graph_snapshots_version_unique";`);
    this.addSql(`alter table "graph_snapshots" drop column "version", drop column "message", drop column "published_by";`);
  }

}
