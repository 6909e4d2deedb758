/**
 * `POST /imports` and `npm run admin -- import`: a bundle of any kind imported into an account in one transaction,
 * answering its plan; a dry run makes the same plan, then rolls everything back.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION, checksumOf } from '../../lib/bundles/bundle-format.js';
import { BadRequestError } from '../../lib/errors.js';
import type { GraphRules } from '../automations/graph-rules.js';
import { importAgent, type AgentBundleContent } from './agent-import.js';
import { inTransaction, referenceMaps, type ImportMapping, type ImportPlan } from './bundle-plan.js';
import { importTable, type BundledTable } from './table-bundle.js';
import { importWorkflow, type WorkflowBundleContent } from './workflow-import.js';

export interface ImportRequest {
  bundle: Record<string, unknown>;
  dryRun?: boolean;
  mapping?: ImportMapping;
  /** Imported workflows start DRAFT (inactive) unless this is true. */
  activate?: boolean;
  /** Remove what an earlier import of the bundle's source made and this bundle no longer has (listed as `stale` otherwise). */
  prune?: boolean;
}

export interface ImportRules {
  flowRules: GraphRules;
  automationRules: GraphRules;
  /** The origin of webhook URLs here, to name the new ones in the plan. */
  publicBaseUrl?: string;
}

/** A Table's or Object's bundle: the table created, or what it lacks added; conflicts named. */
async function importTableBundle(tx: EntityManager, accountId: number, bundle: Record<string, unknown>, plan: ImportPlan): Promise<ImportPlan> {
  const table = bundle.table as BundledTable | undefined;
  if (!table?.name || !['TABLE', 'OBJECT'].includes(table.kind) || !Array.isArray(table.fields))
    throw new BadRequestError('Not a table bundle: table.kind (TABLE or OBJECT), table.name and table.fields are required', 'bundle.table');
  const here = await importTable(
    tx,
    accountId,
    { ...table, ref: table.ref ?? 0, recordTypes: table.recordTypes ?? [] },
    plan,
    referenceMaps({}, plan.connect),
  );
  const action = plan.create.length ? 'create' : plan.update.length ? 'update' : 'unchanged';
  return { ...plan, kind: 'table', action, target: { kind: table.kind, id: here!.id } };
}

export async function importBundle(em: EntityManager, accountId: number, request: ImportRequest, rules: ImportRules): Promise<ImportPlan> {
  const { bundle } = request;
  if (bundle.format !== BUNDLE_FORMAT) throw new BadRequestError(`Not a bundle: format must be "${BUNDLE_FORMAT}"`, 'bundle.format');
  if (bundle.formatVersion !== BUNDLE_FORMAT_VERSION)
    throw new BadRequestError(
      `Bundle format version ${String(bundle.formatVersion)} is not supported (this instance reads ${BUNDLE_FORMAT_VERSION})`,
      'bundle.formatVersion',
    );
  const checksum = checksumOf(bundle);
  const dryRun = !!request.dryRun;
  const mapping = request.mapping ?? {};
  const prune = !!request.prune;
  const plan = (kind: string): ImportPlan => ({
    dryRun,
    kind,
    checksum,
    checksumMatches: bundle.checksum === checksum,
    action: 'create',
    target: { kind, id: null },
    create: [],
    update: [],
    keep: [],
    remove: [],
    stale: [],
    ids: {},
    connect: [],
    conflicts: [],
  });
  switch (bundle.kind) {
    case 'agent':
      return inTransaction(em, dryRun, (tx) =>
        importAgent(tx, accountId, bundle as unknown as AgentBundleContent, plan('agent'), { flowRules: rules.flowRules, mapping, prune }),
      );
    case 'workflow':
      return inTransaction(em, dryRun, (tx) =>
        importWorkflow(tx, accountId, bundle as unknown as WorkflowBundleContent, plan('workflow'), {
          rules: rules.automationRules,
          mapping,
          publicBaseUrl: rules.publicBaseUrl,
          prune,
        }),
      );
    case 'table':
      return inTransaction(em, dryRun, (tx) => importTableBundle(tx, accountId, bundle, plan('table')));
    default:
      throw new BadRequestError(`Bundles of kind "${String(bundle.kind)}" cannot be imported: agent, workflow or table`, 'bundle.kind');
  }
}
