/**
 * Indexing of one knowledge-base document revision, `knowledge:<documentId>:r<revision>`, started from its outbox
 * event: extract → chunk → embed → INDEXED, each step an activity that writes what it made, so a worker that dies
 * mid-way leaves the workflow to resume at the step it was in, on another worker. A step that finds the revision
 * outdated or the document deleted ends the workflow: the newer revision has its own. A permanent failure (an
 * unreadable file, a URL answering 404) marks the revision FAILED with the reason.
 */
import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { IndexDocumentInput } from '../lib/knowledge/indexing-contract.js';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 8 },
});

/** How a document revision's indexing ended. */
export type IndexOutcome = 'INDEXED' | 'FAILED' | 'OUTDATED';

export async function indexKnowledgeDocument(input: IndexDocumentInput): Promise<IndexOutcome> {
  try {
    if (!(await steps.extractKnowledgeText(input)).current) return 'OUTDATED';
    if (!(await steps.chunkKnowledgeText(input)).current) return 'OUTDATED';
    await steps.embedKnowledgeChunks(input);
    return (await steps.markKnowledgeIndexed(input)) ? 'INDEXED' : 'OUTDATED';
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    const cause = error.cause instanceof ApplicationFailure ? error.cause : undefined;
    await steps.markKnowledgeFailed(input, cause?.message ?? error.message);
    return 'FAILED';
  }
}
