/** Temporal client connection shared by the API, the launcher and the admin CLI. */
import { Client, Connection } from '@temporalio/client';

export interface TemporalTarget {
  address: string;
  namespace: string;
}

/** Connects lazily-failing: the first call fails if the frontend does not answer within the timeout. */
export async function connectTemporal({ address, namespace }: TemporalTarget, connectTimeoutMs = 10_000): Promise<Client> {
  const connection = await Connection.connect({ address, connectTimeout: connectTimeoutMs });
  return new Client({ connection, namespace });
}
