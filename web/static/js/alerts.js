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

// A banner that a later ruling settles goes at once (Snap: "Match!" once the match is won or over; Spit: "Slap the
// smaller spit pile!" once a player has): it stayed its 5 s and invited another call (spit/snap phones audit, s38).
// end: { code } of the banners it ends, and sameData when only the banner of the same match (its ruling's data) goes.
function endBanners(box, end, ruling) {
  const data = JSON.stringify(ruling.data === undefined ? null : ruling.data);
  for (const banner of Array.from(box.children)) {
    if (banner.dataset.code === end.code && (!end.sameData || banner.dataset.data === data)) banner.remove();
  }
}

// Show (and, when allowed, sound) the rulings of one event. quiet: a re-sync after a reconnect; away: old news heard
// late (this screen was away), said so on the banner.
// Mere information makes no banner, except the codes a game's screen shows (shown: who won a Snap, a Spit round's
// result), in a quiet banner that neither beeps nor speaks, hidden from screen readers (the screen's `said` says it to
// them: table.js sayInfo); ends: { code of information: what it ends }.
export function announce(rulings, { quiet = false, away = false, shown = null, ends = null } = {}) {
  const box = document.getElementById('banners');
  const list = (rulings || []).filter(Boolean);
  // what the event settled goes first: a quiet banner added before it pushed out a foul's or another match's (review)
  if (box && ends) for (const r of list) if (r.severity === 'info' && ends[r.code]) endBanners(box, ends[r.code], r);
  for (const ruling of list) {
    const info = ruling.severity === 'info';
    if (info && !(shown && shown.has(ruling.code))) continue;
    const key = `${ruling.seq}|${ruling.code}|${ruling.player}|${ruling.message}`;
    if (seen.has(key)) continue;   // the writer hears it twice: its own answer and the live stream
    seen.add(key);
    const mine = !ruling.player || ruling.player === me;
    const banner = el('div', { class: `banner ${ruling.severity}${!info && ruling.player && ruling.player === me ? ' mine' : ''}${away ? ' away' : ''}`,
      role: info ? null : 'alert', 'aria-hidden': info ? 'true' : null,
      dataset: { code: ruling.code, data: JSON.stringify(ruling.data === undefined ? null : ruling.data) } },
      away ? el('span', { class: 'was' }, 'While this screen was away: ') : null, ruling.message,
      ruling.player && !info ? el('span', { class: 'for' }, `for ${ruling.player}`) : null);
    if (box) {   // taps go through a banner (style.css); it goes by itself, and the Alerts list keeps it
      if (info) for (const old of Array.from(box.querySelectorAll('.banner.info'))) old.remove();   // one quiet one
      box.append(banner);
      const loud = Array.from(box.children).filter((b) => !b.classList.contains('info'));   // and two others
      while (loud.length > 2) loud.shift().remove();
      setTimeout(() => banner.remove(), 5000);
    }
    if (quiet || info || !joined || !mine) continue;
    beep(ruling.severity);
    speak(ruling.player ? `${ruling.player}: ${ruling.message}` : ruling.message);
    if (navigator.vibrate) navigator.vibrate(ruling.severity === 'alert' ? [120, 60, 120] : [300, 100, 300]);
  }
}
