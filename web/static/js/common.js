// Shared helpers: the boot data, a DOM builder that only ever writes text (never HTML), the JSON API.

// A screen is running: boot.js's "did not start" (shown if it took longer than boot.js waits) is taken back.
export function started() {
  window.tablecallStarted = true;
  const late = document.getElementById('boot-problem');
  if (late) late.remove();
}

export function bootData() {
  const node = document.getElementById('boot');
  return node ? JSON.parse(node.textContent) : {};
}

// el('li', {class: 'x', onclick: f}, 'text', child, ...): strings become text nodes.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'class') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (value === true) node.setAttribute(key, '');
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

// Empty a node but for its children marked data-kept: a line with role=alert a screen draws again saying the same stays
// in the page, where one drawn anew was said again by a screen reader at every redraw (Spades' #hand-over: spadesfix,
// session 49). The screen takes the kept line back, or removes it, as it draws.
export function clearKept(node) {
  for (const child of Array.from(node.childNodes)) {
    if (!(child.dataset && child.dataset.kept)) node.removeChild(child);
  }
  return node;
}

export class ApiError extends Error {
  constructor(message, status) { super(message); this.status = status; }
}

// `waitMs`: how long to wait for the answer before giving up on it (an entry over a half-open Wi-Fi connection hung
// for ever, and every later tap was refused as "came with the one before it": error-handling audit, session 41).
// `headers`: more request headers (an entry's X-Have: table.js).
export async function api(method, url, body, waitMs, headers = {}) {
  const init = { method, credentials: 'same-origin', headers: { ...headers, Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const stop = waitMs ? new AbortController() : null;
  const timer = stop ? setTimeout(() => stop.abort(), waitMs) : 0;
  if (stop) init.signal = stop.signal;
  const noAnswer = () => new ApiError(`no answer from the server in ${Math.round(waitMs / 1000)} s: look at the Log `
    + 'before you enter it again (it may have been recorded)', 0);
  let response;
  let data = null;
  try {
    try {
      response = await fetch(url, init);
    } catch (err) {
      if (stop && stop.signal.aborted) throw noAnswer();
      // an entry (the calls given a wait: table.js) may have gone through with only its answer lost: said so, or it
      // was entered again (two phones at once, session 42); and at a game night the laptop (lid shut, battery) is as
      // likely as the Wi-Fi (kill audit). Not said of a new game, an import or a calibration: no Log there (a review)
      const where = "the server cannot be reached: check the Wi-Fi, and that tablecall still runs on the host's computer";
      throw new ApiError(method === 'GET' || !waitMs ? where : `${where}; look at the Log before you enter it again (it `
        + 'may have been recorded)', 0);
    }
    try { data = await response.json(); } catch (err) {
      if (stop && stop.signal.aborted) throw noAnswer();
      data = null;
    }
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok) throw new ApiError((data && data.error) || `the server said ${response.status}`, response.status);
  return data;
}

// A row whose buttons came or changed under the finger takes no tap for a person's double-tap time: the second tap
// of a double tap on the camera's Reject landed on the Restore that took its place, and a Log tap 400 ms after another
// phone's undo put Restore where Edit was restored the event (SETTLE_MS's 300 ms let them through: sessions 32 and 38).
// Such a row carries data-held-until (which the tests' taps wait out: browser_kit.tap).
export const DOUBLE_TAP_MS = 600;

// rows: the list's rows now; changed(row): whether it came or changed under the finger; kept: `heldRows` of the rows it
// replaced (a rebuild does not end a hold)
export function holdChangedRows(rows, changed, kept = new Map()) {
  const now = Date.now();
  for (const row of rows) {
    const until = changed(row) ? now + DOUBLE_TAP_MS : Number(kept.get(row.dataset.seq) || 0);
    if (until > now) row.dataset.heldUntil = String(until);
  }
}

export function heldRows(list) {   // a list's rows still held: their event's number -> until when
  const held = new Map();
  for (const row of list.querySelectorAll('[data-held-until]')) held.set(row.dataset.seq, row.dataset.heldUntil);
  return held;
}

// Rows moved on the screen by anything above them, not by the person's own scrolling: a problem line come in above the
// camera's list after a failed poll, the twins line beside "I am", the camera's picture loaded at another shape than
// the page had kept for it, a font, the winner's line. Each moved the rows a line or more, and a tap aimed at one
// row's button 0.2 s later landed on the next row's, nothing said (camlist, session 48). A ResizeObserver on what comes
// before the list in the page, and on the list, notes the rows' places after each layout that changed a size there
// (nothing while nothing changes: no polling), and holds a row moved on the page as holdChangedRows does. The
// person's own scrolling moves no row on the page; a move the browser kept in place on the screen by scrolling with it
// (Chromium's scroll anchoring) holds nothing. `rows()`: the list's rows now (each with its data-seq). Returns
// `check()`, which does the same at once: for a list that redraws its rows (a row moved since the last look, by a
// redraw of what is above it that came before the list's own, is held then). Not on a browser without ResizeObserver
// (before 2020): no such hold there.
export function holdMovedRows(list, rows) {
  if (!list || typeof ResizeObserver !== 'function') return () => {};
  let places = new Map();   // a row's event number -> its top on the page when last noted
  let scrolled = window.scrollY;   // the page's scroll then, as the scroll events last said
  window.addEventListener('scroll', () => { scrolled = window.scrollY; }, { passive: true });
  function check() {
    const now = new Map();
    const moved = [];
    const anchored = window.scrollY - scrolled;   // scrolled by the browser with the layout (no scroll event yet)
    for (const row of rows()) {
      const box = row.getBoundingClientRect();
      if (!box.width && !box.height) continue;   // not shown (another tab): it comes with its tab, not under a finger
      const top = box.top + window.scrollY;
      const before = places.get(row.dataset.seq);
      if (before !== undefined && Math.abs(top - before) >= 4 && Math.abs(top - before - anchored) >= 4) moved.push(row);
      now.set(row.dataset.seq, top);
    }
    places = now;
    scrolled = window.scrollY;
    if (moved.length) holdChangedRows(moved, () => true);
  }
  const observer = new ResizeObserver(check);
  observer.observe(list, { box: 'border-box' });
  for (let node = list; node && node !== document.body; node = node.parentElement) {
    for (let above = node.previousElementSibling; above; above = above.previousElementSibling) {
      observer.observe(above, { box: 'border-box' });
    }
  }
  return check;
}

export function isHeld(button) {   // the button's row came or changed under the finger just now
  const row = button && button.closest('[data-held-until]');
  return Boolean(row) && Date.now() < Number(row.dataset.heldUntil);
}

export function showProblem(node, message) {
  if (!node) return;
  node.textContent = message || '';
  node.hidden = !message;
}

// A value as a person reads it (objects and lists compactly, on one line).
export function plain(value) {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.map(plain).join(', ');
  if (typeof value === 'object') return Object.entries(value).map(([k, v]) => `${k}: ${plain(v)}`).join('; ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return String(value);
}

// The fields of an event other than its envelope.
export function payload(event) {
  const out = {};
  for (const [key, value] of Object.entries(event)) {
    if (!['seq', 'ts', 'source', 'type'].includes(key)) out[key] = value;
  }
  return out;
}

export function describeEvent(event) {
  const fields = payload(event);
  const who = typeof fields.player === 'string' ? fields.player : '';
  delete fields.player;
  const rest = Object.entries(fields).map(([k, v]) => `${k} ${plain(v)}`).join(', ');
  return [event.type, who, rest].filter(Boolean).join(' · ');
}

// "1 card", "3 cards"
export function plural(n, noun) { return `${n} ${noun}${n === 1 ? '' : 's'}`; }

// A form filled in over time whose entry ends a hand, a deal or the game (a whole Spades hand, a Push deal's end,
// Ten's final count) is made on the game as it was when the form was first touched: that is its `seen`
// (`draft.seen`). Another phone (or the camera) that enters it meanwhile makes the server refuse this one (409:
// "entered meanwhile") instead of scoring it twice, however long the form lay open. After such a refusal
// (`draftRefused`), touching the form again starts a new entry. `rows`: the hands or deals scored now (the history's
// rows), kept with `seen`: see `draftOver`.
export function watchDraft(form, draft, seq, rows = () => null) {
  const touched = (e) => {
    if (e.type === 'click' && !e.target.closest('button:not([type="submit"])')) return;
    if (draft.seen == null || draft.stale) { draft.seen = seq(); draft.stale = false; draft.rows = rows(); }
    draft.refused = false;
  };
  for (const type of ['input', 'change', 'click']) form.addEventListener(type, touched);
}

// The `seen` a draft is sent with, as it is sent: on its way it is not a refused draft (sent again as it was, and
// taken this time, it was dropped by the live stream's state as if another screen had scored it: `draftOver`).
export function draftSeen(draft, seq) {
  draft.refused = false;
  return draft.seen == null ? seq : draft.seen;
}

// Refused by the server (409: entered meanwhile, then `stale`; 400: a hand missing ...), not touched since.
export function draftRefused(draft, err) {
  if (!draft || !err || !(err.status >= 400)) return;
  draft.refused = true;
  if (err.status === 409) draft.stale = true;
}

// A refused draft is over once the hand or deal it was for has been scored (the history has other rows than when it
// was begun): another screen scored it. It was kept into the next deal, its hands shown as if the referee knew them
// and its `seen` the old deal's, and that deal's end was refused as "entered meanwhile" (pushpace audit F2, session
// 47). A draft being typed and not sent yet stays: sent, it is refused as entered meanwhile, not scored twice.
export function draftOver(draft, rows) { return Boolean(draft && draft.refused && draft.rows !== rows); }
