/**
 * The web search API of the `web_search` system tool: a SearxNG-compatible JSON endpoint (WEB_SEARCH_URL), asked
 * `GET {url}?q=<query>&format=json` and read as `results[].{title,url,content}`. The endpoint is the operator's
 * (like AI_BASE_URL), so it is called with plain `fetch`, not under the outbound address policy of users' URLs.
 */

/** One result as the model reads it (and a reply cites it). */
export interface WebResult {
  title: string;
  url: string;
  content: string;
}

/** Results handed to the model per search, and the characters of each result's snippet. */
export const WEB_RESULTS = 5;
const SNIPPET_CHARS = 500;

/** A search the endpoint refused or could not answer: the message says what the model is told. */
export class WebSearchError extends Error {
  constructor(
    message: string,
    /** A 5xx, a 429 or a network failure: trying again may help. */
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'WebSearchError';
  }
}

export async function searchWeb(
  baseUrl: string,
  query: string,
  options: { signal?: AbortSignal; timeoutMs?: number; limit?: number } = {},
): Promise<WebResult[]> {
  const url = new URL(baseUrl);
  url.searchParams.set('q', query);
  url.searchParams.set('format', 'json');
  const signals = [AbortSignal.timeout(options.timeoutMs ?? 15_000), ...(options.signal ? [options.signal] : [])];
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.any(signals) });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new WebSearchError(`the search service did not answer: ${(error as Error).message}`, true);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new WebSearchError(`the search service answered ${response.status}`, response.status >= 500 || response.status === 429);
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new WebSearchError('the search service did not answer JSON', false);
  }
  const results = (body as { results?: unknown }).results;
  if (!Array.isArray(results)) throw new WebSearchError('the search service answered no results list', false);
  const str = (value: unknown) => (typeof value === 'string' ? value.trim() : '');
  return results
    .map((r: Record<string, unknown>) => ({ title: str(r?.title), url: str(r?.url), content: str(r?.content).slice(0, SNIPPET_CHARS) }))
    .filter((r) => /^https?:\/\//i.test(r.url))
    .slice(0, options.limit ?? WEB_RESULTS);
}
