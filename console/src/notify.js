// A new conversation waiting for a person: a short chime (generated with WebAudio: no file, nothing for the CSP to
// allow) and the title badge `(N) agentry console`, N being the waiting conversations nobody has taken yet.
import { onChange, waiting } from './inbox-store.js';

const TITLE = 'agentry console';
const SOUND_KEY = 'agentry-console:sound';
let audio = null;

export const soundOn = () => localStorage.getItem(SOUND_KEY) !== 'off';
export function setSound(on) {
  localStorage.setItem(SOUND_KEY, on ? 'on' : 'off');
}

/** Browsers start audio only after a gesture: the first key or click of the page readies it. */
function prime() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  audio = audio || new Context();
  if (audio.state === 'suspended') audio.resume().catch(() => {});
}

function chime() {
  if (!audio || audio.state !== 'running' || !soundOn()) return;
  const now = audio.currentTime;
  for (const [frequency, start] of [
    [880, 0],
    [1320, 0.12],
  ]) {
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(0.2, now + start + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start(now + start);
    tone.stop(now + start + 0.3);
  }
}

export const unclaimed = () => waiting().filter((c) => !c.claim).length;

/** Keeps the title badge current and chimes (and tells screen readers through `announce`) when one starts waiting. */
export function startNotifications(announce, describe) {
  for (const type of ['pointerdown', 'keydown']) document.addEventListener(type, prime, { once: true, capture: true });
  const opened = Date.now();
  const badge = () => {
    const n = unclaimed();
    document.title = n ? `(${n}) ${TITLE}` : TITLE;
  };
  badge();
  return onChange((kind, conversation, before) => {
    badge();
    if (kind !== 'conversation' || conversation.status !== 'HANDED_OFF' || conversation.claim) return;
    if (before && before.status === 'HANDED_OFF' && before.waitingSince === conversation.waitingSince) return;
    // Unknown to the page (beyond the lists it read) and waiting since before it opened: not news.
    if (!before && Date.parse(conversation.waitingSince) < opened - 5000) return;
    chime();
    announce(`New conversation waiting: ${describe(conversation)}`);
  });
}
