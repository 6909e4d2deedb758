/**
 * Admin verbs that fill the per-account catalogs (messaging numbers, connected accounts, templates, social
 * accounts): the provider onboarding that would create them in production is outside this service.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  addMessagingTemplate,
  addSocialAccount,
  connectMessagingNumber,
  messagingNumberView,
  messagingTemplateView,
  removeMessagingNumber,
  removeSocialAccount,
  socialAccountView,
  type RemovedConnection,
} from '../db/channels/numbers-and-pages.service.js';
import { aiModelView, pointAiModel } from '../db/catalogs/ai-models.service.js';
import { connectAccount, connectedAccountView } from '../db/catalogs/integrations.service.js';
import { setMessagingSettings } from '../db/channels/messaging-settings.service.js';
import { setChannelSettings } from '../db/channels/network-accounts.service.js';
import { isMetaChannel } from '../lib/channels/meta-protocol.js';
import type { SecretBox } from '../lib/secret-box.js';

type Options = Record<string, string | boolean | undefined>;
type Verb = (em: EntityManager, options: Options) => Promise<{ json: unknown; text: string }>;

/** The argument readers of `scripts/admin.ts`, so usage errors print the same way for every verb. */
export interface ArgReaders {
  required(options: Options, name: string): string;
  id(options: Options, name: string): number;
  /** A usage error for an option whose value is malformed. */
  usage(message: string): Error;
  /** Seals stored third-party secrets: SETTINGS_ENCRYPTION_KEY's box, null when it is unset. */
  secrets(): SecretBox | null;
}

export const CATALOG_USAGE = `
  connect-number  --account ID --phone +E164 --phone-number-id ID [--assistant UUID] [--display-name TEXT] [--cannot-send]
                                               connect a messaging business number
  messaging-settings --account ID --phone-number-id ID [--base-url URL] [--token TOKEN|-] [--clear]
                                               the Cloud API base URL and token this number sends through (instead of
                                               MESSAGING_API_URL/TOKEN); --token - reads it from stdin; the token is
                                               stored encrypted with SETTINGS_ENCRYPTION_KEY and shown as …last 4 only
  channel-settings --account ID --channel messaging|facebook|instagram --id NETWORK_ID [--assistant UUID]
                  [--verify-token TEXT] [--app-secret SECRET|-] [--access-token TOKEN|-] [--base-url URL] [--clear]
                                               receive the messages of a number (its phone-number id), a Messenger page
                                               or an Instagram account (a social account's id or page; add-social first)
                                               through Meta's webhook /channels/v1/<channel>/webhook and answer them with
                                               the agent --assistant; --base-url is the Send API's (default Meta's Graph
                                               API); secrets are stored encrypted (verify token hashed), - reads stdin
  connect-account --account ID --toolkit NAME --label TEXT [--external-id ID]
                                               connect a third-party account (its id is the nodes' connectedAccountId)
  add-template    --account ID --name NAME --language en [--status APPROVED] [--body-params N]
                                               add a message template (only APPROVED ones are listed and sendable)
  add-social      --account ID --platform NAME --name TEXT [--external-id ID]
                                               connect a social account (INSTAGRAM, FACEBOOK, …)
  remove-number   --account ID --phone-number-id ID [--force]
  remove-social   --account ID --social-account ID [--force]
                                               remove a number or social account; refused while an agent answers
                                               through it or it receives messages, unless --force detaches it
  ai-model        --model=ID [--external-id NAME] [--make-default]   (catalog ids are negative: --model=-1)
                                               point a catalog AI model (GET /ai-models) at a provider-side model name,
                                               e.g. a local Ollama or vLLM model, and/or make it its type's default`;

/** Options of the verbs above, merged into the command line's `parseArgs` options. */
export const CATALOG_OPTIONS = {
  phone: { type: 'string' },
  'phone-number-id': { type: 'string' },
  assistant: { type: 'string' },
  'display-name': { type: 'string' },
  'cannot-send': { type: 'boolean', default: false },
  toolkit: { type: 'string' },
  'external-id': { type: 'string' },
  name: { type: 'string' },
  language: { type: 'string' },
  status: { type: 'string' },
  'body-params': { type: 'string' },
  platform: { type: 'string' },
  model: { type: 'string' },
  'make-default': { type: 'boolean', default: false },
  'base-url': { type: 'string' },
  token: { type: 'string' },
  clear: { type: 'boolean', default: false },
  channel: { type: 'string' },
  id: { type: 'string' },
  'verify-token': { type: 'string' },
  'app-secret': { type: 'string' },
  'access-token': { type: 'string' },
  force: { type: 'boolean', default: false },
  'social-account': { type: 'string' },
} as const;

const optional = (options: Options, name: string): string | undefined => (typeof options[name] === 'string' ? (options[name] as string) : undefined);

/** `--token -`: the token from stdin (kept out of the shell history and the process list). */
async function tokenOption(options: Options, name = 'token'): Promise<string | undefined> {
  const token = optional(options, name);
  if (token !== '-') return token;
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  return text.trim();
}

function removedText(what: string, { detachedFrom }: RemovedConnection): string {
  return detachedFrom ? `removed ${what}, detached from agent "${detachedFrom.name ?? 'deleted'}" (${detachedFrom.agentId})` : `removed ${what}`;
}

export function catalogVerbs({ required, id, usage, secrets }: ArgReaders): Record<string, Verb> {
  return {
    async 'messaging-settings'(em, o) {
      const settings = await setMessagingSettings(em, secrets(), id(o, 'account'), required(o, 'phone-number-id'), {
        baseUrl: optional(o, 'base-url'),
        token: await tokenOption(o),
        clear: o.clear === true,
      });
      const via = settings.cloudApiUrl ? `${settings.cloudApiUrl}, token ${settings.tokenHint}` : 'MESSAGING_API_URL (no settings of its own)';
      return { json: { settings }, text: `number ${settings.phoneNumber} (phoneNumberId ${settings.phoneNumberId}) sends through ${via}` };
    },
    async 'channel-settings'(em, o) {
      const channel = required(o, 'channel');
      if (!isMetaChannel(channel)) throw usage('--channel must be messaging, facebook or instagram');
      if (['app-secret', 'access-token'].every((name) => o[name] === '-'))
        throw usage('only one of --app-secret and --access-token can be read from stdin');
      const settings = await setChannelSettings(em, secrets(), id(o, 'account'), channel, required(o, 'id'), {
        agentId: optional(o, 'assistant'),
        verifyToken: optional(o, 'verify-token'),
        appSecret: await tokenOption(o, 'app-secret'),
        accessToken: await tokenOption(o, 'access-token'),
        baseUrl: optional(o, 'base-url'),
        clear: o.clear === true,
      });
      const text = settings.receives
        ? `${channel} ${settings.networkId} receives messages for ${settings.agentId ? `agent ${settings.agentId}` : 'no agent yet (--assistant)'}; ` +
          `app secret ${settings.appSecretHint}, replies through ${settings.sendApiUrl} with token ${settings.accessTokenHint}; ` +
          `Meta's callback URL: <PUBLIC_BASE_URL>${settings.webhookPath}`
        : `${channel} ${settings.networkId} no longer receives messages`;
      return { json: { settings }, text };
    },
    async 'connect-number'(em, o) {
      const number = messagingNumberView(
        await connectMessagingNumber(em, id(o, 'account'), {
          phoneNumber: required(o, 'phone'),
          phoneNumberId: required(o, 'phone-number-id'),
          assistantId: optional(o, 'assistant') ?? null,
          displayName: optional(o, 'display-name'),
          canSendMessages: o['cannot-send'] !== true,
        }),
      );
      const owner = number.assistantId ? `agent ${number.assistantId}` : 'no agent';
      return {
        json: { number },
        text: `number ${number.id} ${number.phoneNumber} (phoneNumberId ${number.phoneNumberId}, ${owner}, ${number.canSendMessages ? 'can send' : 'cannot send'})`,
      };
    },
    async 'connect-account'(em, o) {
      const connected = connectedAccountView(
        await connectAccount(em, id(o, 'account'), {
          toolkit: required(o, 'toolkit'),
          label: required(o, 'label'),
          externalId: optional(o, 'external-id'),
        }),
      );
      return {
        json: { connectedAccount: connected },
        text: `connected account ${connected.id} ${connected.toolkit} "${connected.label}" (${connected.externalId})`,
      };
    },
    async 'add-template'(em, o) {
      const raw = optional(o, 'body-params');
      if (raw !== undefined && !/^\d+$/.test(raw)) throw usage('--body-params must be a non-negative integer');
      const template = messagingTemplateView(
        await addMessagingTemplate(em, id(o, 'account'), {
          name: required(o, 'name'),
          language: required(o, 'language'),
          status: optional(o, 'status'),
          bodyParams: raw === undefined ? undefined : Number(raw),
        }),
      );
      return { json: { template }, text: `template ${template.id} ${template.name} (${template.language}, ${template.status})` };
    },
    async 'ai-model'(em, o) {
      const raw = required(o, 'model');
      if (!/^-?\d+$/.test(raw)) throw usage('--model must be the numeric id of an AI model (GET /ai-models)');
      const externalId = optional(o, 'external-id')?.trim();
      if (externalId === '') throw usage('--external-id must not be empty');
      if (externalId === undefined && o['make-default'] !== true) throw usage('give --external-id, --make-default or both');
      const model = aiModelView(await pointAiModel(em, Number(raw), { externalId, makeDefault: o['make-default'] === true }));
      return {
        json: { aiModel: model },
        text: `AI model ${model.id} "${model.name}" (${model.type}) → ${model.externalId}${model.isDefault ? ', default' : ''}`,
      };
    },
    async 'remove-number'(em, o) {
      const result = await removeMessagingNumber(em, id(o, 'account'), required(o, 'phone-number-id'), o.force === true);
      return { json: result, text: removedText(`number ${result.removed.networkId}`, result) };
    },
    async 'remove-social'(em, o) {
      const result = await removeSocialAccount(em, id(o, 'account'), id(o, 'social-account'), o.force === true);
      return { json: result, text: removedText(result.removed.networkId, result) };
    },
    async 'add-social'(em, o) {
      const social = socialAccountView(
        await addSocialAccount(em, id(o, 'account'), {
          platform: required(o, 'platform'),
          name: required(o, 'name'),
          externalId: optional(o, 'external-id'),
        }),
      );
      return { json: { socialAccount: social }, text: `social account ${social.id} ${social.platform} "${social.name}" (${social.externalId})` };
    },
  };
}
