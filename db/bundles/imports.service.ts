/**
 * `POST /imports` and `npm run admin -- import`: a bundle of any kind imported into an account in one transaction,
 * answering its plan; a dry run makes the same plan, then rolls everything back.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION, checksumOf } from '../../lib/bundles/bundle-format.js';
import { BadRequestError } from '../../lib/errors.js';
import type { GraphRules } from '../automations/graph-rules.js';
import { importAgent, type AgentBundleContent } from './agent-import.js';
import { inTransaction, type ImportMapping, type ImportPlan } from './bundle-plan.js';
import { importWorkflow, type WorkflowBundleContent } from './workflow-import.js';

export interface ImportRequest {
  bundle: Record<string, unknown>;
  dryRun?: boolean;
  mapping?: ImportMapping;
  /** Imported workflows start DRAFT (inactive) unless this is true. */
  activate?: boolean;
}

export interface ImportRules {
  flowRules: GraphRules;
  automationRules: GraphRules;
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
  const plan = (kind: string): ImportPlan => ({
    dryRun,
    kind,
    checksum,
    checksumMatches: bundle.checksum === checksum,
    action: 'create',
    target: { kind, id: null },
    create: [],
    ids: {},
    connect: [],
    conflicts: [],
  });
  switch (bundle.kind) {
    case 'agent':
      return inTransaction(em, dryRun, (tx) =>
        importAgent(tx, accountId, bundle as unknown as AgentBundleContent, plan('agent'), { flowRules: rules.flowRules, mapping }),
      );
    case 'workflow':
      return inTransaction(em, dryRun, (tx) =>
        importWorkflow(tx, accountId, bundle as unknown as WorkflowBundleContent, plan('workflow'), {
          rules: rules.automationRules,
          mapping,
        }),
      );
    default:
      throw new BadRequestError(
        `Bundles of kind "${String(bundle.kind)}" are exported only (GET /tables/{name}/export); import agents and workflows`,
        'bundle.kind',
      );
  }
}
