/**
 * Benchmark of local intent matching. Run: `node --import tsx test/bench/intent-match.bench.ts`
 * (env PHRASES, default 1000; INTENTS, default 100; MESSAGES, default 500).
 *
 * Builds INTENTS intents with PHRASES training phrases in all (4–9 words each, drawn from a 600-word vocabulary
 * with a seeded generator, so every run sees the same data), then times `matchIntents` for MESSAGES messages: typed
 * copies of phrases with a typo, phrases inside longer messages, and unrelated messages, as turns of conversations
 * with one agent (its phrases are prepared on the first match and found prepared afterwards). Prints p50/p95/max per
 * message and per kind of message, the CPU time per message (less sensitive to other processes than wall time), and
 * the first match against 1,000 phrases never seen before. Wall times grow with the load average it prints.
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { matchIntents, type IntentPhrases } from '../../lib/intents/intent-match.js';
import { percentile } from './bench-processes.js';

const PHRASES = Number(process.env.PHRASES ?? 1000);
const INTENTS = Number(process.env.INTENTS ?? 100);
const MESSAGES = Number(process.env.MESSAGES ?? 500);

// Mulberry32: a small seeded generator, so the data is the same on every run.
let seed = 42;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)];

const letters = 'abcdefghijklmnoprstuvw';
const vocabulary = Array.from({ length: 600 }, () => Array.from({ length: 3 + Math.floor(random() * 7) }, () => pick([...letters])).join(''));
const glue = ['i', 'want', 'to', 'my', 'the', 'please', 'can', 'you', 'where', 'is', 'how', 'what'];
const sentence = (words: number) => Array.from({ length: words }, () => (random() < 0.3 ? pick(glue) : pick(vocabulary))).join(' ');

const intentSet = (): IntentPhrases[] => {
  const intents = Array.from({ length: INTENTS }, (_, i) => ({ id: i + 1, name: `intent ${pick(vocabulary)}`, phrases: [] as string[] }));
  for (let p = 0; p < PHRASES; p++) intents[p % INTENTS].phrases.push(sentence(4 + Math.floor(random() * 6)));
  return intents;
};
const intents = intentSet();
const allPhrases = intents.flatMap((i) => i.phrases);

const typo = (text: string) => {
  const at = Math.floor(random() * text.length);
  return text.slice(0, at) + text.slice(at + 1);
};
const KINDS = ['a phrase with a typo', 'a phrase inside a long message', 'an unrelated message'];
const messages = Array.from({ length: MESSAGES }, (_, i) => {
  if (i % 3 === 0) return typo(pick(allPhrases));
  if (i % 3 === 1) return `hello there, ${sentence(6)}. ${pick(allPhrases)}? thanks ${sentence(4)}`;
  return sentence(3 + Math.floor(random() * 12));
});

// Warm-up (JIT), then the timed run.
for (const m of messages.slice(0, 50)) matchIntents(m, intents);
const samples: number[][] = KINDS.map(() => []);
let matched = 0;
const cpuBefore = process.cpuUsage();
messages.forEach((m, i) => {
  const start = performance.now();
  const result = matchIntents(m, intents);
  samples[i % 3].push(performance.now() - start);
  if (result.best) matched++;
});
const cpu = process.cpuUsage(cpuBefore);

// Cold: the first match against phrases never seen (each is normalised then; later turns find it prepared).
const cold: number[] = [];
for (let i = 0; i < 20; i++) {
  const fresh = intentSet();
  const start = performance.now();
  matchIntents(pick(messages), fresh);
  cold.push(performance.now() - start);
}

const ms = (x: number) => `${x.toFixed(2)} ms`;
const line = (xs: number[]) => `p50 ${ms(percentile(xs, 50))}, p95 ${ms(percentile(xs, 95))}, max ${ms(Math.max(...xs))}`;
console.log(`intent matching: ${allPhrases.length} phrases in ${INTENTS} intents, ${MESSAGES} messages (${matched} matched)`);
console.log(`  all messages:  ${line(samples.flat())}; CPU time ${ms((cpu.user + cpu.system) / 1000 / MESSAGES)} per message`);
KINDS.forEach((kind, k) => console.log(`  ${kind}: ${line(samples[k])}`));
console.log(`  cold (first match of 1,000 new phrases, which are prepared then): ${line(cold)}`);
console.log(`  node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, load average ${loadavg()[0].toFixed(1)}`);
