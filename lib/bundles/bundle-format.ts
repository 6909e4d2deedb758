/**
 * The file format of bundles (an agent, a workflow, a table moved between accounts and instances), pure: one JSON
 * document whose keys are sorted at every level, so two exports of the same thing are the same bytes and a bundle
 * diffs cleanly in git, with a checksum of its content (everything but the checksum) that an import verifies.
 */
import { createHash } from 'node:crypto';

export const BUNDLE_FORMAT = 'agentry-bundle';
export const BUNDLE_FORMAT_VERSION = 1;

export type BundleKind = 'agent' | 'workflow' | 'table';

export interface Bundle {
  format: typeof BUNDLE_FORMAT;
  formatVersion: number;
  kind: BundleKind;
  /** `sha256:<hex>` of the canonical JSON of the bundle without `checksum`. */
  checksum: string;
  [section: string]: unknown;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `value` with the keys of every object sorted (arrays keep their order); `undefined` members dropped. */
export function sortedKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortedKeys) as T;
  if (!isObject(value)) return value;
  const entries = Object.keys(value)
    .sort()
    .filter((key) => value[key] !== undefined)
    .map((key) => [key, sortedKeys(value[key])]);
  return Object.fromEntries(entries) as T;
}

/** The checksum of a bundle's content: everything but `checksum` itself, as canonical JSON. */
export function checksumOf(bundle: Record<string, unknown>): string {
  const { checksum: _ignored, ...content } = bundle;
  return `sha256:${createHash('sha256')
    .update(JSON.stringify(sortedKeys(content)))
    .digest('hex')}`;
}

/** A bundle of `kind` holding `content`, keys sorted, with its checksum. */
export function sealBundle(kind: BundleKind, content: Record<string, unknown>): Bundle {
  const unsealed = { format: BUNDLE_FORMAT, formatVersion: BUNDLE_FORMAT_VERSION, kind, ...content };
  return sortedKeys({ ...unsealed, checksum: checksumOf(unsealed) }) as Bundle;
}

/** The bundle as a file: canonical JSON, two-space indented, with a final newline. */
export const bundleText = (bundle: Bundle): string => `${JSON.stringify(sortedKeys(bundle), null, 2)}\n`;

/** Names that hold secrets: their values never leave in a bundle. */
const SECRET_KEY = /(secret|password|passwd|api[-_]?key|authorization|credentials?|private[-_]?key|token)$/i;

/** Whether `value` is a `{ key, value }` or `{ name, value }` pair (a header, a query parameter) whose name names a secret. */
function secretPair(value: Record<string, unknown>): boolean {
  const name = value.key ?? value.name;
  return typeof name === 'string' && 'value' in value && SECRET_KEY.test(name);
}

/**
 * `value` with every secret removed: the value of a key that names one (`apiKey`, `clientSecret`), and of a
 * `{ key, value }` or `{ name, value }` pair (a custom tool's or an API node's header or parameter) whose name does
 * (`Authorization`, `X-Api-Key`), replaced by null. `removed` collects where, as JSON Pointers from `at`.
 */
export function withoutSecrets<T>(value: T, removed: string[] = [], at = ''): T {
  if (Array.isArray(value)) return value.map((item, i) => withoutSecrets(item, removed, `${at}/${i}`)) as T;
  if (!isObject(value)) return value;
  const headerLike = secretPair(value);
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      if ((SECRET_KEY.test(key) || (headerLike && key === 'value')) && item !== null && item !== '') {
        removed.push(`${at}/${key}`);
        return [key, null];
      }
      return [key, withoutSecrets(item, removed, `${at}/${key}`)];
    }),
  ) as T;
}

/**
 * Bundled `values` put over `here` (what an earlier import made): a secret the bundle left out (null where `here` has
 * one, under a key that names a secret) keeps the value set here since, so updating from a bundle never clears one.
 */
export function withSecretsKept<T>(values: T, here: unknown): T {
  if (Array.isArray(values)) return values.map((item, i) => withSecretsKept(item, Array.isArray(here) ? here[i] : undefined)) as T;
  if (!isObject(values) || !isObject(here)) return values;
  const headerLike = secretPair(values);
  return Object.fromEntries(
    Object.entries(values).map(([key, item]) => {
      const secret = SECRET_KEY.test(key) || (headerLike && key === 'value');
      return [key, secret && item === null && here[key] != null ? here[key] : withSecretsKept(item, here[key])];
    }),
  ) as T;
}
