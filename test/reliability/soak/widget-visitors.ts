/**
 * A livechat widget visitor of the soak, as the widget's browser script behaves: a session, the conversation's event
 * stream kept open (reconnected from the last event id whenever its connection drops, as EventSource does), and
 * messages sent through the widget API. Every event id received is kept, in order, for the checker to compare with
 * the transcript: a stream that resumed must have missed nothing and repeated nothing.
 */
import type { SoakClient } from './client.js';

const SITE = 'https://shop.example';

export class WidgetVisitor {
  conversationId = '';
  private token = '';
  /** Message ids in the order the stream delivered them, across reconnections. */
  readonly received: string[] = [];
  /** Connections after the first (each resumed from the last id seen). */
  reconnects = 0;
  /** Messages the widget API answered 200, and those it never answered. */
  accepted = 0;
  unanswered = 0;
  /** Why streams dropped or could not be opened (status or error name), counted. */
  readonly drops = new Map<string, number>();
  private readonly abort = new AbortController();
  private streaming?: Promise<void>;

  constructor(
    private readonly client: SoakClient,
    private readonly agentId: string,
    /** Resume with the `Last-Event-ID` header alone; else with `?after=` as well. */
    private readonly resumeByHeader: boolean,
  ) {}

  private get path(): string {
    return `/widget/v1/agents/${this.agentId}/conversations/${this.conversationId}`;
  }

  async start(): Promise<void> {
    const session = await this.client.send('widget session', 'POST', `/widget/v1/agents/${this.agentId}/sessions`, {
      body: { pageUrl: `${SITE}/soak` },
      headers: { origin: SITE },
    });
    if (session.status !== 201) throw new Error(`widget session: ${session.status} ${JSON.stringify(session.body)}`);
    this.token = session.body.token;
    this.conversationId = session.body.conversationId;
    this.streaming = this.stream();
  }

  async say(text: string): Promise<void> {
    const res = await this.client.send('widget message', 'POST', `${this.path}/messages`, {
      body: { text },
      headers: { origin: SITE, authorization: `Bearer ${this.token}` },
    });
    if (res.status === 200) this.accepted += 1;
    else this.unanswered += 1;
  }

  /** The conversation's message ids as the widget API reads them (the transcript). */
  async transcript(): Promise<string[]> {
    const res = await this.client.send('check', 'GET', this.path, { headers: { origin: SITE, authorization: `Bearer ${this.token}` } });
    if (res.status !== 200) throw new Error(`widget transcript: ${res.status} ${JSON.stringify(res.body)}`);
    return (res.body.messages as { id: string }[]).map((m) => m.id);
  }

  private drop(why: string): void {
    this.drops.set(why, (this.drops.get(why) ?? 0) + 1);
  }

  private async stream(): Promise<void> {
    for (let attempt = 0; !this.abort.signal.aborted; attempt += 1) {
      const last = this.received.at(-1);
      if (attempt > 0) this.reconnects += 1;
      const headers: Record<string, string> = { origin: SITE, authorization: `Bearer ${this.token}`, accept: 'text/event-stream' };
      if (last) headers['last-event-id'] = last;
      const query = last && !this.resumeByHeader ? `?after=${last}` : '';
      // Besides the kills, the visitor's network blips now and then (every 10 to 30 s), as a phone's does: the stream
      // drops and resumes wherever the kills fell.
      const blip = new AbortController();
      const timer = setTimeout(() => blip.abort(), 10_000 + Math.random() * 20_000);
      try {
        const signal = AbortSignal.any([this.abort.signal, blip.signal]);
        const res = await fetch(`${this.client.origin}${this.path}/stream${query}`, { headers, signal });
        if (res.status !== 200 || !res.body) {
          this.drop(String(res.status));
          await res.body?.cancel();
        } else {
          await this.read(res.body);
          this.drop('closed');
        }
      } catch (error) {
        if (this.abort.signal.aborted) return;
        this.drop(blip.signal.aborted ? 'blip' : (error as Error).name);
      } finally {
        clearTimeout(timer);
      }
      // A pause before reconnecting, as EventSource makes.
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** Reads events until the connection ends; keeps the id of each `message` event. */
  private async read(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = new Map(event.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]));
        if (fields.get('event') === 'message' && fields.get('id')) this.received.push(fields.get('id')!);
      }
    }
  }

  /** Closes the stream for good. */
  async close(): Promise<void> {
    this.abort.abort();
    await this.streaming;
  }
}
