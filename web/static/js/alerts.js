// Alerts: a banner for every ruling that is not mere information; on a phone that tapped "Join"
// (browsers allow sound only after a tap) also a beep, the message spoken, and a vibration.
// A ruling about one player sounds and vibrates only on that player's phone ("I am ...").
import { el } from './common.js';

let audio = null;
let joined = false;
let me = '';
const seen = new Set();

export function join() {
  joined = true;
  try {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (Context && !audio) audio = new Context();
    if (audio && audio.state === 'suspended') audio.resume();
  } catch (err) { audio = null; }
  if ('speechSynthesis' in window) {
    try { window.speechSynthesis.speak(new SpeechSynthesisUtterance('')); } catch (err) { /* no voice */ }
  }
  return joined;
}

export function setMe(name) { me = name || ''; }
export function isJoined() { return joined; }

function beep(severity) {
  if (!audio) return;
  const now = audio.currentTime;
  const tones = severity === 'alert' ? [880, 1175] : [440, 330];
  tones.forEach((freq, i) => {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = freq;
    osc.type = 'square';
    gain.gain.setValueAtTime(0.0001, now + i * 0.18);
    gain.gain.exponentialRampToValueAtTime(0.25, now + i * 0.18 + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.18 + 0.16);
    osc.connect(gain).connect(audio.destination);
    osc.start(now + i * 0.18);
    osc.stop(now + i * 0.18 + 0.17);
  });
}

function speak(text) {
  if (!('speechSynthesis' in window)) return;
  try {
    const words = new SpeechSynthesisUtterance(text);
    words.rate = 1.05;
    window.speechSynthesis.speak(words);
  } catch (err) { /* no voice on this device */ }
}

// Show (and, when allowed, sound) the rulings of one event. quiet: a re-sync after a reconnect.
export function announce(rulings, { quiet = false } = {}) {
  const box = document.getElementById('banners');
  for (const ruling of rulings || []) {
    if (!ruling || ruling.severity === 'info') continue;
    const key = `${ruling.seq}|${ruling.code}|${ruling.player}|${ruling.message}`;
    if (seen.has(key)) continue;   // the writer hears it twice: its own answer and the live stream
    seen.add(key);
    const mine = !ruling.player || ruling.player === me;
    const banner = el('div', { class: `banner ${ruling.severity}${ruling.player && ruling.player === me ? ' mine' : ''}`,
      role: 'alert', dataset: { code: ruling.code } },
      ruling.message,
      ruling.player ? el('span', { class: 'for' }, `for ${ruling.player}`) : null);
    if (box) {   // taps go through a banner (style.css); it goes by itself, and the Alerts list keeps it
      box.append(banner);
      while (box.children.length > 2) box.firstChild.remove();
      setTimeout(() => banner.remove(), 5000);
    }
    if (quiet || !joined || !mine) continue;
    beep(ruling.severity);
    speak(ruling.player ? `${ruling.player}: ${ruling.message}` : ruling.message);
    if (navigator.vibrate) navigator.vibrate(ruling.severity === 'alert' ? [120, 60, 120] : [300, 100, 300]);
  }
}
