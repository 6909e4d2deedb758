import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';

export const TEMPLATE_STATUSES = ['APPROVED', 'PENDING', 'REJECTED'] as const;

export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];

/** A parameter of a template component; `id` is the key used in a node's `templateVariables`. */
export interface TemplateParameter {
  id: string;
  example?: string;
}

/** The parts of a template that take parameters, as SEND_MESSAGING_MESSAGE fills them (`header`, `body`, `buttons`). */
export interface TemplateComponents {
  header?: { text: string; parameters: TemplateParameter[] } | null;
  body: { text: string; parameters: TemplateParameter[] };
  buttons?: { type: 'URL' | 'QUICK_REPLY'; text: string; parameters: TemplateParameter[] }[];
}

/** A business message template of the messaging channel; only APPROVED ones can be sent. */
export class MessagingTemplate {
  id!: number;
  account!: Account;
  name!: string;
  /** Language code, e.g. en or pt_BR. */
  language!: string;
  /** MARKETING, UTILITY or AUTHENTICATION. */
  category!: string;
  status!: TemplateStatus;
  components!: TemplateComponents;
  createdAt: Opt<Date> = new Date();
}

export const MessagingTemplateSchema = new EntitySchema<MessagingTemplate>({
  class: MessagingTemplate,
  tableName: 'messaging_templates',
  checks: [{ name: 'messaging_templates_status_check', expression: "status in ('APPROVED', 'PENDING', 'REJECTED')" }],
  uniques: [{ name: 'messaging_templates_account_name_language_unique', properties: ['account', 'name', 'language'] }],
  indexes: [{ name: 'messaging_templates_account_index', properties: ['account'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    name: { type: 'text' },
    language: { type: 'text' },
    category: { type: 'text' },
    status: { type: 'text' },
    components: { type: 'json' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
