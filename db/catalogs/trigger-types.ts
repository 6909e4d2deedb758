/**
 * The built-in catalog of third-party trigger events (EXTERNAL_TRIGGER nodes) and the validation of a node's
 * `triggerConfig` against it. Pure: no database, so the API, the workflow node validation and tests share it.
 */

export type TriggerConfigFieldType = 'string' | 'number' | 'boolean';

/** One setting of a trigger subscription. */
export interface TriggerConfigField {
  name: string;
  type: TriggerConfigFieldType;
  description: string;
  required: boolean;
  /** false for platform-managed settings (the polling `interval`): ignored when a node sends them. */
  userConfigurable: boolean;
  /** Set when the value is an id to look up in the connected account (`/integrations/trigger-resources`). */
  resourceType?: string;
}

/** A third-party event a workflow can be started by. */
export interface TriggerType {
  /** Provider event slug, the node's `triggerSlug`. */
  slug: string;
  /** Uppercase toolkit owning the event, the node's `triggerToolkit`. */
  toolkit: string;
  name: string;
  description: string;
  configFields: TriggerConfigField[];
}

const field = (
  name: string,
  type: TriggerConfigFieldType,
  description: string,
  options: { required?: boolean; userConfigurable?: boolean; resourceType?: string } = {},
): TriggerConfigField => ({
  name,
  type,
  description,
  required: options.required ?? false,
  userConfigurable: options.userConfigurable ?? true,
  ...(options.resourceType && { resourceType: options.resourceType }),
});

/** Polling triggers check the provider on a schedule the platform manages. */
const interval = field('interval', 'number', 'Minutes between two checks for new events; managed by the platform', { userConfigurable: false });
const githubRepo = [
  field('owner', 'string', 'Owner (user or organization) of the repository', { required: true, resourceType: 'github_owner' }),
  field('repo', 'string', 'Name of the repository', { required: true, resourceType: 'github_repository' }),
];

// The team-chat toolkit (SLACK) deliberately has no new-message trigger (SPEC.md).
export const TRIGGER_TYPES: readonly TriggerType[] = [
  {
    slug: 'GMAIL_NEW_GMAIL_MESSAGE',
    toolkit: 'GMAIL',
    name: 'New Gmail message',
    description: 'Fires when a new message arrives in the mailbox, optionally narrowed by label or search query',
    configFields: [
      interval,
      field('userId', 'string', "Mailbox to watch; 'me' is the connected account's own", {}),
      field('labelIds', 'string', 'Only messages carrying this label, e.g. INBOX', { resourceType: 'gmail_label' }),
      field('query', 'string', 'Gmail search query the message must match, e.g. from:billing@example.com', {}),
    ],
  },
  {
    slug: 'GMAIL_EMAIL_SENT_TRIGGER',
    toolkit: 'GMAIL',
    name: 'Email sent',
    description: 'Fires when the mailbox sends a message',
    configFields: [interval, field('userId', 'string', "Mailbox to watch; 'me' is the connected account's own", {})],
  },
  {
    slug: 'GITHUB_COMMIT_EVENT',
    toolkit: 'GITHUB',
    name: 'New commit',
    description: 'Fires for each commit pushed to the repository',
    configFields: [...githubRepo],
  },
  {
    slug: 'GITHUB_PULL_REQUEST_EVENT',
    toolkit: 'GITHUB',
    name: 'Pull request event',
    description: 'Fires when a pull request is opened, closed, reopened or synchronized',
    configFields: [...githubRepo],
  },
  {
    slug: 'GITHUB_ISSUE_ADDED_EVENT',
    toolkit: 'GITHUB',
    name: 'New issue',
    description: 'Fires when an issue is opened in the repository',
    configFields: [...githubRepo],
  },
  {
    slug: 'GITHUB_STAR_ADDED_EVENT',
    toolkit: 'GITHUB',
    name: 'New star',
    description: 'Fires when someone stars the repository',
    configFields: [...githubRepo],
  },
  {
    slug: 'SLACK_CHANNEL_CREATED',
    toolkit: 'SLACK',
    name: 'Channel created',
    description: 'Fires when a channel is created in the workspace',
    configFields: [],
  },
  {
    slug: 'SLACK_REACTION_ADDED',
    toolkit: 'SLACK',
    name: 'Reaction added',
    description: 'Fires when someone adds an emoji reaction, optionally only in one channel',
    configFields: [
      field('channel', 'string', 'Only reactions in this channel', { resourceType: 'slack_channel' }),
      field('emoji', 'string', 'Only this emoji name, e.g. white_check_mark', {}),
    ],
  },
  {
    slug: 'HUBSPOT_CONTACT_CREATED_TRIGGER',
    toolkit: 'HUBSPOT',
    name: 'Contact created',
    description: 'Fires when a contact is created in the CRM portal',
    configFields: [interval, field('properties', 'string', 'Comma-separated contact properties to include in the payload', {})],
  },
  {
    slug: 'HUBSPOT_DEAL_STAGE_UPDATED_TRIGGER',
    toolkit: 'HUBSPOT',
    name: 'Deal stage changed',
    description: 'Fires when a deal moves to another stage, optionally only in one pipeline',
    configFields: [
      interval,
      field('pipelineId', 'string', 'Only deals of this pipeline', { resourceType: 'hubspot_pipeline' }),
      field('stageId', 'string', 'Only deals entering this stage', { resourceType: 'hubspot_deal_stage' }),
    ],
  },
  {
    slug: 'GOOGLE_CALENDAR_EVENT_CREATED',
    toolkit: 'GOOGLE_CALENDAR',
    name: 'Event created',
    description: 'Fires when an event is added to the calendar',
    configFields: [
      interval,
      field('calendarId', 'string', "Calendar to watch; 'primary' is the account's main calendar", { resourceType: 'google_calendar' }),
    ],
  },
  {
    slug: 'GOOGLE_CALENDAR_EVENT_STARTING_SOON',
    toolkit: 'GOOGLE_CALENDAR',
    name: 'Event starting soon',
    description: 'Fires a set number of minutes before an event starts',
    configFields: [
      interval,
      field('calendarId', 'string', "Calendar to watch; 'primary' is the account's main calendar", { resourceType: 'google_calendar' }),
      field('minutesBefore', 'number', 'How many minutes before the start to fire', { required: true }),
      field('includeAllDay', 'boolean', 'Also fire for all-day events', {}),
    ],
  },
];

const BY_SLUG = new Map(TRIGGER_TYPES.map((t) => [t.slug, t]));

/** The trigger type of a slug (exact, uppercase), or undefined. */
export function findTriggerType(slug: string): TriggerType | undefined {
  return BY_SLUG.get(slug);
}

/** Trigger types, optionally only those of one toolkit (case-insensitive). */
export function listTriggerTypes(toolkit?: string): TriggerType[] {
  const wanted = toolkit?.trim().toUpperCase();
  return TRIGGER_TYPES.filter((t) => !wanted || t.toolkit === wanted);
}

const TYPE_MESSAGES: Record<TriggerConfigFieldType, string> = {
  string: 'must be a string',
  number: 'must be a number',
  boolean: 'must be a boolean',
};

function valueProblem(f: TriggerConfigField, value: unknown): string | undefined {
  switch (f.type) {
    case 'string':
      if (typeof value !== 'string') return TYPE_MESSAGES.string;
      if (f.required && value.trim() === '') return 'must not be empty';
      return undefined;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : TYPE_MESSAGES.number;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : TYPE_MESSAGES.boolean;
  }
}

/**
 * Checks a node's `triggerConfig` for the event `slug` and returns the config to store: user-configurable fields
 * only (platform-managed ones such as `interval` are dropped), optional fields sent as null left out. On the
 * first problem returns SPEC.md's message instead. Values are not checked against the provider.
 */
export function validateTriggerConfig(slug: string, config: unknown): { config: Record<string, unknown> } | { message: string } {
  const type = findTriggerType(slug);
  if (!type) return { message: `Unsupported trigger: ${slug}` };
  if (config !== undefined && config !== null && (typeof config !== 'object' || Array.isArray(config))) {
    return { message: 'Invalid trigger config: triggerConfig - must be an object' };
  }
  const given = (config ?? {}) as Record<string, unknown>;
  const fields = new Map(type.configFields.map((f) => [f.name, f]));
  for (const key of Object.keys(given)) {
    if (!fields.has(key)) return { message: `Unknown trigger config field for ${slug}: ${key}` };
  }
  const result: Record<string, unknown> = {};
  for (const f of type.configFields) {
    if (!f.userConfigurable) continue;
    const value = given[f.name];
    if (value === undefined || value === null) {
      if (f.required) return { message: `Invalid trigger config: ${f.name} - is required` };
      continue;
    }
    const problem = valueProblem(f, value);
    if (problem) return { message: `Invalid trigger config: ${f.name} - ${problem}` };
    result[f.name] = value;
  }
  return { config: result };
}
