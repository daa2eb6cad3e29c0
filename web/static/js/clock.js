// The game clock on a phone, for press times (who called Snap first): the page's steady clock,
// performance.now(), plus an offset measured against the server when the page joins the game. Not Date.now():
// the phone's wall clock may be set forward or back (NTP) between the measurement and a press, and a press was
// then stamped that much wrong until the next measurement, up to 5 minutes (a press-time audit, session 35).
//
// Measuring (NTP's idea, on GET /api/games/<id>/clock): note t0 = local(), ask the server for
// the game clock `now`, note t1 = local(). The answer was made somewhere inside the round trip,
// so offset = now + (t1 - t0) / 2 - t1, wrong by at most half the round trip. Of SAMPLES tries the
// one with the shortest round trip is kept. It is measured again when the live stream reconnects,
// when the phone comes back from sleep, every RESYNC_MS, and whenever a server message proves the
// offset too small (a message stamped `now` that arrives at t says offset >= now - t).
import { api } from './common.js';

const local = () => (window.performance && performance.now ? performance.now() : Date.now());

const SAMPLES = 5;
const RESYNC_MS = 5 * 60 * 1000;
const SLACK_MS = 250;   // how far a server message may contradict the offset before measuring again

let gameId = null;
let offset = null;      // game clock minus local()
let rtt = null;         // the round trip of the sample kept
let measuring = null;   // the measurement in progress (a promise)
let measuredAt = 0;
let anchor = null;      // the wall clock minus local() when the offset was last measured (null: not measured)

export function startClock(id, serverNow) {
  gameId = id;
  if (typeof serverNow === 'number') offset = serverNow - local();   // a first guess: the page's own data
  setInterval(() => { if (local() - measuredAt > RESYNC_MS) syncClock(); }, 30000);
  return syncClock();
}

// Measure the offset now (SAMPLES round trips); resolves with {offset, rtt} or null if unreachable.
export function syncClock() {
  if (!gameId) return Promise.resolve(null);
  if (measuring) return measuring;
  const run = (async () => {
    let best = null;
    for (let i = 0; i < SAMPLES; i += 1) {
      const t0 = local();
      let answer;
      try { answer = await api('GET', `/api/games/${gameId}/clock`); } catch (err) { continue; }
      const t1 = local();
      if (!answer || typeof answer.now !== 'number') continue;
      const sample = { rtt: t1 - t0, offset: answer.now + (t1 - t0) / 2 - t1 };
      if (!best || sample.rtt < best.rtt) best = sample;
    }
    if (best) {
      offset = Math.round(best.offset);
      rtt = best.rtt;
      measuredAt = local();
      anchor = Date.now() - local();
      document.documentElement.dataset.clock = 'synced';
      document.dispatchEvent(new CustomEvent('tablecall:clock', { detail: { offset, rtt } }));
    }
    return best ? { offset, rtt } : null;
  })();
  measuring = run.finally(() => { measuring = null; });
  return measuring;
}

// A server message stamped with the game clock: if it arrived "before it was sent", measure again.
export function heardClock(serverNow) {
  if (typeof serverNow !== 'number') return;
  if (offset === null) { offset = serverNow - local(); return; }
  if (serverNow - local() > offset + SLACK_MS) syncClock();
}

// The steady clock stops while the phone sleeps (except on Windows): a page shown again after it drifted from the
// wall clock while hidden does not trust its offset (a press stamped that much early would win a Snap race) until
// it is measured again; presses meanwhile go without a time, stamped on arrival.
let hiddenAt = null;
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') { hiddenAt = { wall: Date.now(), steady: local() }; return; }
  if (!hiddenAt) return;
  const drift = (Date.now() - hiddenAt.wall) - (local() - hiddenAt.steady);
  hiddenAt = null;
  if (Math.abs(drift) > SLACK_MS && offset !== null) { offset = null; anchor = null; measuredAt = 0; syncClock(); }
});

// Forget the offset's freshness (the phone slept, the stream reconnected): measure again.
export function clockStale() { measuredAt = 0; syncClock(); }

// The game clock now (ms), or null before anything was heard from the server.
export function gameNow() { return offset === null ? null : Math.max(0, Math.round(local() + offset)); }

export function clockInfo() { return { offset, rtt, synced: measuredAt > 0 }; }

// How long ago on the game's clock the server made a message stamped `serverNow` (a state's `now`), or null while this
// phone cannot say: the offset not measured yet (a first guess from a held message would make it look new), or the
// steady clock stopped since it was (the phone slept; this may run before the page hears it is shown again), when it
// is measured again. measured(): when a measurement in progress ends.
export function ageOf(serverNow) {
  if (typeof serverNow !== 'number' || offset === null || anchor === null) return null;
  if (Math.abs(Date.now() - local() - anchor) > SLACK_MS) { syncClock(); return null; }
  return gameNow() - serverNow;
}

export function measured() { return measuring || Promise.resolve(null); }
