import { Migration } from '@mikro-orm/migrations';

type Seed = [
  id: number,
  name: string,
  description: string,
  type: 'TEXT' | 'TRANSCRIPTION' | 'FILE_ANALYSIS',
  vendor: string,
  externalId: string,
  reasoning: boolean,
  credits: number,
  isDefault: boolean,
  order: number,
  color: string,
  deprecated: boolean,
];

/** The AI catalog as shipped with this migration (later migrations add, deprecate or re-default models). */
const AI_MODELS: Seed[] = [
  [-1, 'GPT-4o', "OpenAI's flagship multimodal model: fast, capable, good at following instructions", 'TEXT', 'OPENAI', 'gpt-4o', false, 5, true, 1, '#10A37F', false],
  [-2, 'GPT-4o mini', 'Small, fast and inexpensive model for focused tasks', 'TEXT', 'OPENAI', 'gpt-4o-mini', false, 1, false, 2, '#19C37D', false],
  [-3, 'o3-mini', 'Reasoning model for multi-step problems, math and code', 'TEXT', 'OPENAI', 'o3-mini', true, 8, false, 3, '#0E7C5A', false],
  [-4, 'Claude Sonnet 4', "Anthropic's balanced model for agents, tool use and writing", 'TEXT', 'ANTHROPIC', 'claude-sonnet-4-20250514', false, 6, false, 4, '#D97757', false],
  [-5, 'Claude 3.5 Haiku', "Anthropic's fastest model for quick replies", 'TEXT', 'ANTHROPIC', 'claude-3-5-haiku-20241022', false, 2, false, 5, '#E3A587', false],
  [-6, 'Claude 3.7 Sonnet (extended thinking)', 'Thinks step by step before answering', 'TEXT', 'ANTHROPIC', 'claude-3-7-sonnet-20250219', true, 10, false, 6, '#B85C3C', false],
  [-7, 'Gemini 2.0 Flash', "Google's low-latency model with a long context window", 'TEXT', 'GOOGLE', 'gemini-2.0-flash', false, 1, false, 7, '#4285F4', false],
  [-8, 'Gemini 2.5 Pro', "Google's thinking model for complex reasoning", 'TEXT', 'GOOGLE', 'gemini-2.5-pro', true, 8, false, 8, '#1A73E8', false],
  [-9, 'GPT-3.5 Turbo', 'Legacy model; choose GPT-4o mini instead', 'TEXT', 'OPENAI', 'gpt-3.5-turbo', false, 1, false, 90, '#74AA9C', true],
  [-10, 'Claude 3 Opus', 'Legacy model; choose Claude Sonnet 4 instead', 'TEXT', 'ANTHROPIC', 'claude-3-opus-20240229', false, 15, false, 91, '#8C4A32', true],
  [-20, 'Whisper', 'Speech to text in about 100 languages', 'TRANSCRIPTION', 'OPENAI', 'whisper-1', false, 2, true, 1, '#6E56CF', false],
  [-21, 'GPT-4o Transcribe', 'Speech to text with lower word error rate than Whisper', 'TRANSCRIPTION', 'OPENAI', 'gpt-4o-transcribe', false, 3, false, 2, '#8E7CE0', false],
  [-22, 'GPT-4o mini Transcribe', 'Inexpensive speech to text', 'TRANSCRIPTION', 'OPENAI', 'gpt-4o-mini-transcribe', false, 1, false, 3, '#B4A7EE', false],
  [-30, 'GPT-4o (file analysis)', 'Reads text and images of documents (OCR) and answers about them', 'FILE_ANALYSIS', 'OPENAI', 'gpt-4o', false, 5, true, 1, '#F59E0B', false],
  [-31, 'Gemini 2.0 Flash (file analysis)', 'Fast document and image understanding with a long context', 'FILE_ANALYSIS', 'GOOGLE', 'gemini-2.0-flash', false, 2, false, 2, '#FBBF24', false],
  [-32, 'Claude Sonnet 4 (file analysis)', 'PDF and image analysis with careful extraction', 'FILE_ANALYSIS', 'ANTHROPIC', 'claude-sonnet-4-20250514', false, 6, false, 3, '#F97316', false],
];

const literal = (value: string | number | boolean): string =>
  typeof value === 'string' ? `'${value.replace(/'/g, "''")}'` : String(value);

export class Migration20261121170001_catalogs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "ai_models" ("id" int not null, "name" text not null, "description" text null, "type" text not null,
      "ai_vendor" text not null, "reasoning_model" boolean not null default false, "credits_per_message" int not null,
      "is_default" boolean not null default false, "display_order" int not null, "analytics_color" text not null,
      "external_id" text not null, "deprecated" boolean not null default false,
      constraint "ai_models_pkey" primary key ("id"),
      constraint ai_models_type_check check (type in ('TEXT', 'TRANSCRIPTION', 'FILE_ANALYSIS')),
      constraint ai_models_default_not_deprecated check (not (is_default and deprecated)));`);
    this.addSql(`alter table "ai_models" add constraint "ai_models_vendor_external_id_type_unique" unique ("ai_vendor", "external_id", "type");`);
    this.addSql(`create unique index "ai_models_one_default_per_type" on "ai_models" ("type") where "is_default";`);
    const rows = AI_MODELS.map(
      ([id, name, description, type, vendor, externalId, reasoning, credits, isDefault, order, color, deprecated]) =>
        `(${[id, name, description, type, vendor, externalId, reasoning, credits, isDefault, order, color, deprecated].map(literal).join(', ')})`,
    );
    this.addSql(`insert into "ai_models" ("id", "name", "description", "type", "ai_vendor", "external_id", "reasoning_model",
      "credits_per_message", "is_default", "display_order", "analytics_color", "deprecated") values
      ${rows.join(',\n      ')};`);

    this.addSql(`create table "messaging_numbers" ("id" serial primary key, "account_id" int not null, "phone_number" text not null,
      "display_name" text not null, "phone_number_id" text not null, "assistant_id" uuid null,
      "can_send_messages" boolean not null default true, "created_at" timestamptz not null);`);
    this.addSql(`alter table "messaging_numbers" add constraint "messaging_numbers_account_phone_number_id_unique" unique ("account_id", "phone_number_id");`);
    this.addSql(`create index "messaging_numbers_account_index" on "messaging_numbers" ("account_id");`);

    this.addSql(`create table "social_accounts" ("id" serial primary key, "account_id" int not null, "platform" text not null,
      "name" text not null, "external_id" text not null, "pages" jsonb not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "social_accounts_account_index" on "social_accounts" ("account_id");`);

    this.addSql(`create table "messaging_templates" ("id" serial primary key, "account_id" int not null, "name" text not null,
      "language" text not null, "category" text not null, "status" text not null, "components" jsonb not null,
      "created_at" timestamptz not null,
      constraint messaging_templates_status_check check (status in ('APPROVED', 'PENDING', 'REJECTED')));`);
    this.addSql(`alter table "messaging_templates" add constraint "messaging_templates_account_name_language_unique" unique ("account_id", "name", "language");`);
    this.addSql(`create index "messaging_templates_account_index" on "messaging_templates" ("account_id");`);

    this.addSql(`create table "connected_accounts" ("id" serial primary key, "account_id" int not null, "toolkit" text not null,
      "label" text not null, "external_id" text not null, "status" text not null default 'ACTIVE', "created_at" timestamptz not null,
      constraint connected_accounts_status_check check (status in ('ACTIVE', 'EXPIRED')));`);
    this.addSql(`create index "connected_accounts_account_index" on "connected_accounts" ("account_id");`);

    for (const table of ['messaging_numbers', 'social_accounts', 'messaging_templates', 'connected_accounts']) {
      this.addSql(`alter table "${table}" add constraint "${table}_account_id_foreign" foreign key ("account_id") references "accounts" ("id") on update cascade on delete cascade;`);
    }
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "connected_accounts" cascade;`);
    this.addSql(`drop table if exists "messaging_templates" cascade;`);
    this.addSql(`drop table if exists "social_accounts" cascade;`);
    this.addSql(`drop table if exists "messaging_numbers" cascade;`);
    this.addSql(`drop table if exists "ai_models" cascade;`);
  }
}
