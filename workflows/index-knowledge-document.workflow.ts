/**
 * Indexing of one knowledge-base document revision, `knowledge:<documentId>:r<revision>`, started from its outbox
 * event: extract → chunk → INDEXED (text searchable), then embed, each step an activity that writes what it made, so
 * a worker that dies mid-way leaves the workflow to resume at the step it was in, on another worker. A step that finds
 * the revision outdated or the document deleted ends the workflow: the newer revision has its own. A permanent failure
 * (an unreadable file, a URL answering 404) marks the revision FAILED with the reason. Embeddings never hold the text
 * back: they have their own state, retried with backoff while the provider is down, UNAVAILABLE once retries are spent.
 */
import { ActivityFailure, ApplicationFailure, patched, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.js';
import type { IndexDocumentInput } from '../lib/knowledge/indexing-contract.js';

const steps = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 8 },
});

/** Embeddings wait out a provider that is down: 2 s, 4 s, … up to 10 minutes apart, about 40 minutes in all. */
const embedding = proxyActivities<Activities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', maximumAttempts: 12 },
});

/** Runs started before it embedded the chunks before marking the revision INDEXED (and failed it when embedding failed). */
export const EMBEDDINGS_APART_PATCH = 'knowledge-embeddings-apart';

/** How a document revision's indexing ended. */
export type IndexOutcome = 'INDEXED' | 'FAILED' | 'OUTDATED';

const reasonOf = (error: ActivityFailure) => (error.cause instanceof ApplicationFailure ? error.cause.message : error.message);

export async function indexKnowledgeDocument(input: IndexDocumentInput): Promise<IndexOutcome> {
  try {
    if (!(await steps.extractKnowledgeText(input)).current) return 'OUTDATED';
    if (!(await steps.chunkKnowledgeText(input)).current) return 'OUTDATED';
    if (!patched(EMBEDDINGS_APART_PATCH)) {
      await steps.embedKnowledgeChunks(input);
      return (await steps.markKnowledgeIndexed(input)) ? 'INDEXED' : 'OUTDATED';
    }
    if (!(await steps.markKnowledgeIndexed(input))) return 'OUTDATED';
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    await steps.markKnowledgeFailed(input, reasonOf(error));
    return 'FAILED';
  }
  try {
    await embedding.embedKnowledgeDocument(input);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    await steps.markKnowledgeEmbeddingsUnavailable(input, `Embedding retries spent: ${reasonOf(error)}`);
  }
  return 'INDEXED';
}
