import { Migration } from '@mikro-orm/migrations';

export class Migration20261125230412_handoffs extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "conversations" add column "handoffs" int not null default 0;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "conversations" drop column "handoffs";`);
  }

}
