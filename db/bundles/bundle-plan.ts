/**
 * The plan of a bundle import (what is created, the ids it maps, what must be connected by hand, conflicts), the
 * references of graphs and settings it maps from the exporting account's ids to the importing one's.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sortedKeys, withoutSecrets } from '../../lib/bundles/bundle-format.js';
import { normalize, type Graph, type GraphNode } from '../../lib/graph/graph.js';

export interface PlannedItem {
  kind: string;
  name: string;
  /** Its id where the bundle was exported. */
  sourceId: string | number | null;
  /** Its id here: null in a dry run for what the import creates. */
  id: string | number | null;
}

/** Something an earlier import made (or of the same name here), changed in place: what changes, a line each. */
export interface PlannedUpdate extends PlannedItem {
  changes: string[];
}

export interface ImportPlan {
  dryRun: boolean;
  kind: string;
  checksum: string;
  /** False when the bundle was edited after its export (an import still goes ahead). */
  checksumMatches: boolean;
  /**
   * `create`: new here; `update`: imported before from another version of the bundle, changed in place (same ids);
   * `unchanged`: this very bundle was imported before (`target` names what it made), nothing is done.
   */
  action: 'create' | 'update' | 'unchanged';
  target: { kind: string; id: string | number | null };
  create: PlannedItem[];
  update: PlannedUpdate[];
  /** What an update finds as the bundle has it, left as it is. */
  keep: PlannedItem[];
  /** What an earlier import of this source made and the bundle no longer has, removed here (only with `prune`). */
  remove: PlannedItem[];
  /** The same without `prune`: left here as it is (`prune: true` removes it). */
  stale: PlannedItem[];
  /** `<kind>:<id there>` → id here (null in a dry run for what is created). */
  ids: Record<string, string | number | null>;
  /** References the import cannot carry: connect them here, then pass `mapping` (or set them by hand). */
  connect: { reference: string; where: string; message: string }[];
  conflicts: string[];
}

/** What `mapping` of an import maps: `connectedAccount:5` → 7, `agent:<uuid>` → `<uuid>`, `table:12` → 34. */
export type ImportMapping = Record<string, string | number>;

/** The keys of `plan.ids` of what the import created, to hide in a dry run (keyed by the `ids` object spreads share). */
const createdKeys = new WeakMap<object, Set<string>>();

/**
 * Notes one item of the bundle under `key` (`intent:4`): created (`changes` undefined), updated (changes) or kept
 * (no change); `first` puts it first in its list (the agent or workflow itself, noted last).
 */
export function planItem(plan: ImportPlan, key: string, item: PlannedItem, changes?: string[], first = false): void {
  plan.ids[key] = item.id;
  if (!changes) createdKeys.set(plan.ids, (createdKeys.get(plan.ids) ?? new Set()).add(key));
  const [list, entry] = !changes ? [plan.create, item] : changes.length ? [plan.update, { ...item, changes }] : [plan.keep, item];
  if (first) list.unshift(entry as PlannedUpdate);
  else list.push(entry as PlannedUpdate);
}

/**
 * Adds `what: "old" → "new"` (`what changed` for objects and lists) to `changes` when the two differ, compared as
 * canonical JSON with the secrets a bundle leaves out left out of both; answers whether they differ.
 */
export function noteChange(changes: string[], what: string, before: unknown, after: unknown): boolean {
  const canonical = (v: unknown) => JSON.stringify(sortedKeys(withoutSecrets(v ?? null)));
  if (canonical(before) === canonical(after)) return false;
  const composite = [before, after].some((v) => typeof v === 'object' && v !== null);
  changes.push(composite ? `${what} changed` : `${what} ${JSON.stringify(before ?? null)} → ${JSON.stringify(after ?? null)}`);
  return true;
}

/** Notes `key` → `id` in the plan's ids without listing an item (a variable); `created`: hidden in a dry run. */
export function planId(plan: ImportPlan, key: string, id: string | number, created: boolean): void {
  plan.ids[key] = id;
  if (created) createdKeys.set(plan.ids, (createdKeys.get(plan.ids) ?? new Set()).add(key));
}

/** Thrown inside the import's transaction to roll a dry run back once its plan is made. */
export class DryRunRollback extends Error {
  constructor(readonly plan: ImportPlan) {
    super('dry run');
  }
}

/** Runs `apply` in one transaction; a dry run is applied the same way, then rolled back, and its new ids hidden. */
export async function inTransaction(em: EntityManager, dryRun: boolean, apply: (tx: EntityManager) => Promise<ImportPlan>): Promise<ImportPlan> {
  try {
    return await em.transactional(async (tx) => {
      const plan = await apply(tx);
      if (dryRun) throw new DryRunRollback(plan);
      return plan;
    });
  } catch (error) {
    if (!(error instanceof DryRunRollback)) throw error;
    const { plan } = error;
    const created = createdKeys.get(plan.ids) ?? new Set();
    const ids = Object.fromEntries(Object.entries(plan.ids).map(([key, id]) => [key, created.has(key) ? null : id]));
    const target = plan.action === 'create' ? { ...plan.target, id: null } : plan.target;
    return { ...plan, dryRun: true, ids, create: plan.create.map((item) => ({ ...item, id: null })), target };
  }
}

/** How the references of an imported graph or setting map, and where unmapped ones are noted. */
export interface ReferenceMaps {
  intents: Map<number, number>;
  resources: Map<number, number>;
  webhooks: Map<string, string>;
  tables: Map<number, number>;
  recordTypes: Map<number, number>;
  /** The business phone-number ids of the messaging numbers here: a node naming one keeps it. */
  numbers: Set<string>;
  /** The exported agent's id and its new one (a node answering as the agent itself). */
  agent?: { from: string; to: string };
  mapping: ImportMapping;
  connect: ImportPlan['connect'];
  /** `<nodeId> data.<field>` of references noted in `connect`: a dry run lists them there instead of refusing. */
  unresolved: Set<string>;
}

/** Reference maps with nothing mapped yet. */
export function referenceMaps(mapping: ImportMapping, connect: ImportPlan['connect']): ReferenceMaps {
  const maps = { intents: new Map(), resources: new Map(), webhooks: new Map(), tables: new Map(), recordTypes: new Map() };
  return { ...maps, numbers: new Set(), mapping, connect, unresolved: new Set() };
}

type Mapped = 'intents' | 'resources' | 'webhooks' | 'agent' | 'connectedAccount' | 'tables' | 'recordTypes' | 'messagingNumber';

const LIST_FIELDS: Record<string, Mapped> = {
  intentIds: 'intents',
  customToolIds: 'resources',
  playbookIds: 'resources',
  knowledgeBaseIds: 'resources',
  triggerByWebhookIds: 'webhooks',
  triggeredByAgentIds: 'agent',
  connectedAccountIds: 'connectedAccount',
};

const SINGLE_FIELDS: [string, Mapped][] = [
  ['connectedAccountId', 'connectedAccount'],
  ['assistantId', 'agent'],
  ['tableId', 'tables'],
  ['triggeredByTableId', 'tables'],
  ['recordTypeId', 'recordTypes'],
  ['triggeredByRecordTypeId', 'recordTypes'],
  ['phoneNumberId', 'messagingNumber'],
];

/** What a reference names, in a sentence. */
const NAMES: Partial<Record<Mapped, string>> = {
  tables: 'table',
  recordTypes: 'recordType',
  messagingNumber: 'messagingNumber',
  connectedAccount: 'connectedAccount',
};

/** One reference mapped, or undefined (noted in `connect`) when nothing maps it. */
function mapOne(maps: ReferenceMaps, what: Mapped, id: unknown, where: string): unknown {
  const key = typeof id === 'number' ? id : Number(id);
  const mapped = {
    intents: () => maps.intents.get(key),
    resources: () => maps.resources.get(key),
    webhooks: () => maps.webhooks.get(String(id)),
    tables: () => maps.tables.get(key),
    recordTypes: () => maps.recordTypes.get(key),
    agent: () => (maps.agent && maps.agent.from === id ? maps.agent.to : undefined),
    messagingNumber: () => (maps.numbers.has(String(id)) ? id : undefined),
    connectedAccount: () => undefined,
  }[what]();
  if (mapped !== undefined) return mapped;
  const reference = `${NAMES[what] ?? what}:${String(id)}`;
  if (reference in maps.mapping) return maps.mapping[reference];
  if (maps.connect.some((c) => c.reference === reference)) return undefined;
  const message =
    what === 'messagingNumber'
      ? `no messaging number ${JSON.stringify(id)} here: connect one (GET /channels) and pass mapping {"${reference}": "<phone-number id here>"}`
      : `${what} ${JSON.stringify(id)} is not in the bundle: pass mapping {"${reference}": <id here>}`;
  maps.connect.push({ reference, where, message });
  return undefined;
}

/** `data` with its reference fields mapped (an unmapped id of a list is left out; an unmapped single id stays, and the checks name it). */
export function mapReferences(data: Record<string, unknown>, maps: ReferenceMaps, where: string, nodeId?: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...data };
  for (const [field, what] of Object.entries(LIST_FIELDS)) {
    const ids = data[field];
    if (!Array.isArray(ids)) continue;
    out[field] = ids.map((id) => mapOne(maps, what, id, `${where}.${field}`)).filter((id) => id !== undefined);
  }
  for (const [field, what] of SINGLE_FIELDS) {
    const id = data[field];
    if (id === undefined || id === null || id === '') continue;
    const mapped = mapOne(maps, what, id, `${where}.${field}`);
    if (mapped === undefined && nodeId) maps.unresolved.add(`${nodeId} data.${field}`);
    out[field] = mapped ?? id;
  }
  return out;
}

export function mapGraph(graph: Graph, maps: ReferenceMaps, where: string): Graph {
  const nodes = graph.nodes.map((node) => ({
    ...node,
    data: mapReferences(node.data, maps, `${where} node ${node.nodeId}`, node.nodeId) as GraphNode['data'],
  }));
  return normalize({ nodes, edges: graph.edges });
}
