// The live table: draws the game from its state, keeps a live stream open (resuming where it
// stopped), and lets players enter events, undo, and edit any past event (as correction events).
import { DOUBLE_TAP_MS, api, bootData, clear, clearKept, describeEvent, el, heldRows, holdChangedRows, isHeld, payload, plain, showProblem, started } from './common.js';
import { announce, join, setMe } from './alerts.js';
import { ageOf, clockInfo, clockStale, gameNow, heardClock, measured, startClock, syncClock } from './clock.js';
import { screens } from './games/index.js';
import { initCamera } from './camera.js';
import { drawTwins, heardTwins, phoneId } from './twins.js';

const B = bootData();
const gameId = B.id;
// ?from=<old game>: come from the game played again or corrected (/g/<old>/next), its "I am" carried (wireJoin)
const cameFrom = new URLSearchParams(window.location.search).get('from');
{ // ?joined=1 from /join and ?from leave the address (only they: ?camera=snapshot and the like stay)
  const params = new URLSearchParams(window.location.search);
  if (params.has('joined') || params.has('from')) {
    params.delete('joined');
    params.delete('from');
    const rest = params.toString();
    window.history.replaceState(null, '', window.location.pathname + (rest ? `?${rest}` : '') + window.location.hash);
  }
}
const role = B.role;
const canWrite = role === 'player' || role === 'host';
const screen = screens[B.state.game] || null;
let state = B.state;
let lastId = state.seq;
let source = null;
let lastHeard = Date.now();
const heartbeatMs = Math.max(1000, (B.heartbeat_s || 15) * 1000);

// -- the game clock (press times, e.g. who called Snap first): see clock.js ------------------
startClock(gameId, state.now);

// -- writing ---------------------------------------------------------------------------------
// One entry at a time from this screen: a tap while one is on its way, or just after it (the buttons are redrawn
// for the next player under the finger), is a double tap and is not sent. Snap calls race and are never held;
// `follow` is for an entry's own further events (a correction of several bids).
// Likewise a tap within SETTLE_MS after another screen's entry redrew this one: the buttons had moved on to the next
// player under the finger, and the tap went in for him, or on the "claims the rest" that came up under it, with
// nothing said (spades phones audit, s38).
// This screen's own entry holds a tap until a double tap's time from the tap that sent it (DOUBLE_TAP_MS), and
// SETTLE_MS after its answer: two taps on a Spades bid 450 ms apart entered Alex's 3, then Beth's 13, which the redraw
// had put where the 3 was (session 44; the hold was SETTLE_MS after the answer).
// Both holds are for what is under the finger. Within DOUBLE_TAP_MS a tap is a double tap only on the first's button as
// it was (the finger's point inside its box; for a key's click, the centres within 24 px), whatever the redraw put
// there; within SETTLE_MS after a redraw (another screen's entry, this screen's own answer or refusal) only a tap on a
// button that was not at the same place with the same meaning, for the same turn, just before it. A tap on a button not known is held as any was: every tap
// had been, and with four phones at the pace people play 1 Spit entry in 8-16 was refused when both players played at
// once, on a pile the other's play had not touched, and in Ten a draw 0.59 s after the one before, on another card
// (pace audit, session 45).
const SETTLE_MS = 300;
const UNHELD = new Set(['call', 'resolve']);
let sending = false;
let settledAt = 0;   // until when this screen's own last entry may hold a tap (what the tests' taps wait out)
let doubleUntil = 0;   // until when a tap where this screen's last entry was tapped is a double tap
let lastRect = null;   // the box of the button that sent it, when tapped (a finger's tap on it again is a double tap)
let redrawnAt = 0;
let shiftedAt = 0;   // when a line came or went above the tabs (the twins line), moving every button below it
let beforeRedraw = { turn: null, buttons: [] };   // the Enter and Table tabs' buttons just before the latest redraws
let touched = null;   // {button, at, point}: the button (or null) the latest pointer-down or click landed on, when, where
for (const type of ['pointerdown', 'click']) {
  document.addEventListener(type, (e) => {
    const target = e.target && e.target.closest ? e.target.closest('button, summary, a, input, select, label') : null;
    // where the finger was (a tap's pointer-down and click say; a key's click, or a script's, does not)
    const point = e.isTrusted && (e.clientX || e.clientY) ? { x: e.clientX, y: e.clientY } : null;
    touched = { button: target, at: Date.now(), point };
  }, true);
}
function turnNow() { return screen && screen.turn ? screen.turn(state) : null; }
function centre(r) { return { x: r.left + r.width / 2, y: r.top + r.height / 2 }; }
function spot(b) { return centre(b.getBoundingClientRect()); }
function near(a, b) { return Math.abs(a.x - b.x) < 24 && Math.abs(a.y - b.y) < 24; }
function inside(p, r) { return p.x >= r.left - 8 && p.x <= r.right + 8 && p.y >= r.top - 8 && p.y <= r.bottom + 8; }
function meaning(b) {   // its words and data, and the heading of its box ("Beth plays:")
  const box = b.closest('.card') || document.getElementById('entry');
  const head = box && box.querySelector('h2, .big');
  return `${head ? head.textContent : ''}|${b.textContent}|${JSON.stringify({ ...b.dataset })}|${b.disabled}`;
}
// The screen is about to change under a finger: the buttons as they were before the first of changes close together.
function redrawing(turn = turnNow()) {
  const now = Date.now();
  if (now - redrawnAt >= SETTLE_MS) {
    beforeRedraw = { turn, buttons: [...document.querySelectorAll('#tab-enter button, #tab-table button')]
      .map((b) => ({ ...spot(b), what: meaning(b) })) };
  }
  redrawnAt = now;
}
function unchanged(b) {   // at the same place, with the same meaning, for the same turn, as before the redraws
  if (!b || !b.isConnected || beforeRedraw.turn !== turnNow()) return false;
  const [at, what] = [spot(b), meaning(b)];
  return beforeRedraw.buttons.some((o) => Math.abs(o.x - at.x) < 4 && Math.abs(o.y - at.y) < 4 && o.what === what);
}

// An entry for the player whose turn this screen shows, tapped on another player's phone ("I am ..."): at the table the
// next player lays a card and taps it before the last player's card is in, and it went in as the last player's card,
// nothing said (Beth's 7C entered as Alex's, then Alex's AC as Beth's: the trick's winner changed; pace audit, session
// 45). Asked first; the same tap again, from DOUBLE_TAP_MS to ASK_AGAIN_MS later and with the game as it was, enters it
// as shown. Any player's phone, not only the next seat's: a trick's winner leads next, and Snap skips a player who is
// out (a review). Not on the host's screen, nor once this screen has entered such an entry (a scorekeeper's: in a
// two-player game every entry for the other player would be asked), nor a claim (it asks first itself).
const ASK_AGAIN_MS = 10000;
let askedFor = null;   // {key, at}: the entry asked about
let forOthers = false;   // whether this screen has entered for the player whose turn it showed, not its own
// an entry for the player whose turn this screen shows, from a phone that says it is another player's
function forTurn(body) {
  const turn = screen && screen.turn ? screen.turn(state) : null;
  return Boolean(ctx.me && turn && body.player === turn && turn !== ctx.me);
}
function forAnother(body) {
  if (role === 'host' || forOthers || body.type === 'claim' || !forTurn(body)) return null;
  return askFirst(body) ? { me: ctx.me, turn: body.player } : null;
}
// whether to ask: not when it is the same entry tapped again as asked (the answer), with the game as it was
function askFirst(body) {
  const key = `${state.seq}|${JSON.stringify(body)}`;   // (the same entry once the game moved on is asked again)
  const now = Date.now();
  if (askedFor && askedFor.key === key && now - askedFor.at < ASK_AGAIN_MS) {
    if (now - askedFor.at >= DOUBLE_TAP_MS) { askedFor = null; return false; }   // tapped again: meant
    return true;   // (a double tap is not the answer)
  }
  askedFor = { key, at: now };
  return true;
}

let logMovedAt = 0;   // (the Log's rows: see undoEvent)
const MOVED = 'The screen changed just as you tapped (an entry came in), so the tap was not sent: look again, and tap again if you meant it.';
const SHIFTED = 'The screen moved just as you tapped (a line came in above), so the tap was not sent: look again, and tap again if you meant it.';

function settling() {   // for the tests' taps (browser_kit.tap): until when this screen takes a tap for a slip
  const until = Math.max(settledAt, redrawnAt + SETTLE_MS, logMovedAt + SETTLE_MS, shiftedAt + DOUBLE_TAP_MS);   // (and rows' data-held-until)
  document.documentElement.dataset.tapsHeldUntil = String(until);
}

// `seen`: the last event the screen had when the entry was made (an editor: when it opened). The server refuses an
// undo or edit of an event changed since by another screen, and takes an entry already logged since (a tap sent
// again because the answer was lost on the Wi-Fi, or a second phone entering the same) only once.
// The problem line to write in after an answer: the answer's state may have redrawn the one given (a duplicate's
// "Already entered" went to a line no longer on the page: a JS mutation audit, s39), so the one now there by its id.
function lineNow(node) {
  if (node && node.isConnected) return node;
  return (node && node.id && document.getElementById(node.id)) || document.getElementById('entry-problem');
}

// The button an entry was tapped on says it is on its way until its answer, refusal or error (style.css: faded, a wait
// cursor, aria-busy): on a weak Wi-Fi the answer takes half a second and more, nothing on the card changed meanwhile,
// and the tap looked lost (slow-phone audit, session 45). The button is the one under the finger (`touched`: a tap, a
// key on the button, or a form's Enter).
function markSending(node, on) {
  if (!node) return;
  if (on) { node.dataset.sending = '1'; node.setAttribute('aria-busy', 'true'); return; }
  delete node.dataset.sending;
  node.removeAttribute('aria-busy');
}

// How long an entry waits for its answer (a test may shorten it with <html data-answer-ms>).
function answerMs() { return Number(document.documentElement.dataset.answerMs) || 15000; }

// A game's screen may ask a question of its own (`ask`: its words), asked as the one above: Push's stock draw for a
// player while the turn's discard is not in yet (pushpace audit F1, session 47). `answered`: the screen has asked its
// own way, and the person chose to enter for the turn's player (Push's "Enter Alex's discard"): not asked again.
async function send(body, problemNode, { follow = false, seen = state.seq, ask = null, answered = false } = {}) {
  const held = !follow && !UNHELD.has(body.type);
  // the button under the finger (not known: a tap held as before, wherever it landed)
  const under = touched && Date.now() - touched.at < 1000 && touched.button && touched.button.isConnected
    ? touched.button : null;
  // a line come above the tabs moved every button a line or more: held a double tap's time, as the camera's rows and
  // the Undo line are (at SETTLE_MS, a tap 350-550 ms after the twins line came on entered the card above the one
  // aimed at, nothing said: review2, session 48)
  const shifted = Date.now() - shiftedAt < DOUBLE_TAP_MS;
  const moved = (Date.now() - redrawnAt < SETTLE_MS || shifted) && !unchanged(under);
  // where the first tap's button was: by the finger's point where it is known (the button now under it may be
  // another size, its centre far from the first's: a double tap on Spades' last bid played a card), else by centres
  const point = under && touched.point;
  const again = !under || !lastRect || (point ? inside(point, lastRect) : near(spot(under), centre(lastRect)))
    || moved;
  if (held && (sending || (Date.now() < doubleUntil && again))) {
    const err = new Error('That tap came with the one before it and was not sent: tap again if you meant it.');
    showProblem(problemNode || document.getElementById('entry-problem'), err.message);
    throw err;
  }
  if (held && moved) {
    const err = new Error(shifted && redrawnAt === shiftedAt ? SHIFTED : MOVED);
    showProblem(problemNode || document.getElementById('entry-problem'), err.message);
    throw err;
  }
  const forOther = held && forTurn(body);
  const asked = forOther && !answered ? forAnother(body) : null;
  const question = asked ? `This screen is at ${asked.turn}'s turn, and this phone is ${asked.me}'s: wait for `
    + `${asked.turn}'s entry to come in, or tap again to enter this for ${asked.turn}.`
    : (held && ask && !forOther && askFirst(body) ? ask : null);
  if (question) {
    const err = new Error(question);
    showProblem(problemNode || document.getElementById('entry-problem'), err.message);
    throw err;
  }
  const tapped = Date.now();
  const button = held && under && under.matches('button, input[type="submit"]') ? under : null;
  if (held) {
    sending = true;
    lastRect = under ? under.getBoundingClientRect() : null;
    document.documentElement.dataset.sending = '1';
    markSending(button, true);
  }
  showProblem(problemNode, '');
  try {
    // when it was made, on the game's clock: entries held on their way (the laptop paused) go in in that order
    const made = gameNow();
    const result = await api('POST', `/api/games/${gameId}/events`, made === null ? { ...body, seen } : { ...body, seen, made }, answerMs(), haveHeader());
    if (forOther && !answered && !result.duplicate) forOthers = true;   // (a question answered its own way: not a scorekeeper's)
    const next = whole(result.state);   // (its history left out where this screen said it holds it)
    if (next) apply(next, { own: held }); else refreshState();   // an unheld one (a call, the timer's resolve) moves the buttons too
    announce(result.rulings, shownBy(screen));
    sayInfo(result.rulings);
    if (result.duplicate) {
      showProblem(lineNow(problemNode), result.counts === false
        ? `Already entered as event #${result.event.seq}, a foul that changed nothing: see the Log.`
        : `Already entered as event #${result.event.seq}: it counts once.`);
    }
    if (activeTab() === 'log') loadLog();
    return result;
  } catch (err) {
    if (held && MOVING_TABS.has(activeTab())) redrawing();   // the refusal's words may move the buttons down
    showProblem(lineNow(problemNode), err.message);
    throw err;
  } finally {
    if (held) {
      sending = false;
      doubleUntil = tapped + DOUBLE_TAP_MS;
      settledAt = Math.max(doubleUntil, Date.now() + SETTLE_MS);
      document.documentElement.dataset.sending = '';
      markSending(button, false);
      settling();
    }
  }
}

const ctx = {
  get state() { return state; },
  spec: B.spec,
  role,
  canWrite,
  send,
  gameNow,
  syncClock,
  clockInfo,
  get me() { const me = document.getElementById('me'); return (me && me.value) || ''; },
  redraw: () => draw(),
  problem: () => document.getElementById('entry-problem'),
};

// -- drawing ---------------------------------------------------------------------------------
function leaderOf(totals, lowerWins) {
  const values = Object.values(totals);
  if (!values.length || values.every((v) => v === values[0])) return null;
  return lowerWins ? Math.min(...values) : Math.max(...values);
}

function drawTotals() {
  const body = document.querySelector('#totals tbody');
  clear(body);
  const best = leaderOf(state.totals, state.lower_wins);
  // a finished game's winners as the referee ruled them (a tie broken by other counts: Ten's tokens, then cards)
  const won = state.finished && Array.isArray(state.winner) && state.winner.length
    && state.winner.every((name) => name in state.totals) ? state.winner : null;
  for (const [name, total] of Object.entries(state.totals)) {
    const members = state.teams && state.teams[name] && state.teams[name].join(' & ') !== name ? state.teams[name] : null;
    const leads = won ? won.includes(name) && won.length < Object.keys(state.totals).length : total === best;
    body.append(el('tr', { class: leads ? 'leader' : '', dataset: { name } },
      el('th', { scope: 'row' }, name, members ? el('span', { class: 'members' }, members.join(' & ')) : null),
      el('td', { class: 'num' }, String(total))));
  }
  document.getElementById('better').textContent = state.lower_wins ? 'lower is better' : 'higher is better';
  const winner = document.getElementById('winner');
  winner.hidden = !state.winner;
  winner.textContent = state.winner_text || '';
  const again = document.getElementById('again-box');   // the host's "Play again" once the game is over
  if (again) again.hidden = !state.finished;
  const next = document.getElementById('next-box');   // the game played again after this one: every screen's way in
  next.hidden = !state.next;
  if (state.next) {
    const link = document.getElementById('next-game');
    link.href = `/g/${encodeURIComponent(gameId)}/next`;
    link.textContent = (state.next.corrected ? `This game was corrected: go to ${state.next.title}`
      : `Next game: ${state.next.title}`) + (state.next.started ? ` · started ${state.next.started}` : '');
  }
}

function turnOf(view) {
  for (const key of ['turn', 'to_play', 'to_act', 'whose_turn', 'next_player', 'leader']) {
    if (view && typeof view[key] === 'string' && state.players.includes(view[key])) return view[key];
  }
  return null;
}

function drawGeneric(root) {
  const list = el('dl');
  for (const [key, value] of Object.entries(state.view || {})) {
    list.append(el('dt', {}, key.replace(/_/g, ' ')), el('dd', {}, plain(value)));
  }
  root.append(list);
}

function drawTable() {
  drawTotals();
  const turn = (screen && screen.turn) ? screen.turn(state) : turnOf(state.view);
  const turnNode = clear(document.getElementById('turn'));
  if (turn && !state.finished) turnNode.append('Turn: ', el('strong', {}, turn));
  const view = clear(document.getElementById('view'));
  if (screen && screen.view) screen.view(view, ctx); else drawGeneric(view);
  const alerts = clear(document.getElementById('alerts'));
  for (const ruling of [...(state.alerts || [])].reverse()) {
    alerts.append(el('li', {}, el('span', { class: `sev ${ruling.severity}` }, ruling.severity),
      ruling.player ? `${ruling.player}: ` : '', ruling.message));
  }
  if (!state.alerts || !state.alerts.length) alerts.append(el('li', { class: 'muted' }, 'none'));
}

function historyColumns(rows) {
  const columns = [];
  for (const row of rows) {
    for (const [key, value] of Object.entries(row)) {
      const flat = value && typeof value === 'object' && !Array.isArray(value)
        && Object.values(value).every((v) => v === null || typeof v !== 'object');
      const names = flat ? Object.keys(value).map((k) => [key, k]) : [[key, null]];
      for (const name of names) if (!columns.some((c) => c[0] === name[0] && c[1] === name[1])) columns.push(name);
    }
  }
  return columns;
}

function drawHistory() {
  const table = clear(document.getElementById('history'));
  if (screen && screen.history) { screen.history(table, ctx); return; }
  const rows = state.history || [];
  if (!rows.length) { table.append(el('caption', { class: 'muted' }, 'No hand finished yet.')); return; }
  const columns = historyColumns(rows);
  table.append(el('thead', {}, el('tr', {}, el('th', {}, '#'),
    columns.map(([key, sub]) => el('th', {}, sub ? `${key} ${sub}` : key)))));
  const body = el('tbody');
  rows.forEach((row, i) => {
    body.append(el('tr', {}, el('td', { class: 'num' }, String(i + 1)), columns.map(([key, sub]) => {
      const value = sub ? (row[key] || {})[sub] : row[key];
      return el('td', { class: typeof value === 'number' ? 'num' : '' }, value === undefined ? '' : plain(value));
    })));
  });
  table.append(body);
}

// The Enter tab's Undo undoes the event its line names as drawn (data-seq), and a tap just after that line changed
// (another phone's entry came in, or changed the one named) takes no tap for a double tap's time, as a Log row: David
// read "Undo #1: drew R9 (Alex)", Alex's R2 came in 0.3-0.7 s before his finger landed, and his tap undid the good R2
// (the newest event at the tap; SETTLE_MS held only 300 ms, and only a button moved: tenpace audit F1, session 48).
// Drawn while the entry is kept for typing too (apply): the line named an event no longer the last one, and a tap undid
// the newest, not drawn.
let undoNamed = null;   // the line the Undo button was last drawn with
function drawEntry() {
  if (!canWrite) return;
  const entry = clearKept(document.getElementById('entry'));   // (a line the screen keeps: common.js clearKept)
  if (screen && screen.entry) screen.entry(entry, ctx);
  drawUndo();
}

function drawUndo() {
  if (!canWrite) return;
  const last = (state.recent || [])[state.recent.length - 1];
  const undo = document.getElementById('undo');
  undo.disabled = !last;
  const named = last ? `Undo #${last.seq}: ${describe(last)}` : 'Nothing to undo.';
  if (undoNamed !== null && named !== undoNamed) undo.dataset.heldUntil = String(Date.now() + DOUBLE_TAP_MS);
  undoNamed = named;
  undo.dataset.seq = last ? String(last.seq) : '';
  document.getElementById('undo-what').textContent = named;
}

function describe(event) { return (screen && screen.describe && screen.describe(event, state)) || describeEvent(event); }

function draw() {
  drawn = true;
  const focused = focusKey(document.activeElement);
  const problems = Array.from(document.querySelectorAll('#main .problem[id]')).filter((n) => !n.hidden && n.textContent)
    .map((n) => [n.id, n.textContent]);
  drawTable();
  drawHistory();
  drawEntry();
  camera.drawEvents(state);
  // A refusal stays until the next entry: the screens rebuild their problem line with every redraw, so another
  // phone's event a second later wiped it and the entry looked taken (accessibility audit, session 36).
  for (const [id, text] of problems) {
    const now = document.getElementById(id);
    if (now && !now.textContent) showProblem(now, text);
  }
  refocus(focused);
}

// A redraw replaces the buttons: the one the keyboard was on (a buzzer, a card) gets the focus back, where every
// event, another phone's too, threw a keyboard or screen-reader user to the top of the page.
// what tells a button from the others: its own data and its row's (a Log row, a player's seat)
function dataOf(node) { return node ? JSON.stringify(Object.assign({}, node.dataset)) : ''; }
function rowOf(node) { return node.parentElement && node.parentElement.closest('[data-seq], [data-player]'); }

function focusKey(node) {
  if (!node || node === document.body || !node.closest || !node.closest('#main')) return null;
  return { id: node.id, tag: node.tagName, cls: node.className, text: node.textContent, data: dataOf(node),
    row: dataOf(rowOf(node)) };
}

function refocus(key) {
  if (!key || (document.activeElement && document.activeElement !== document.body)) return;
  const same = (n) => n.closest('#main') && !n.disabled && n.offsetParent !== null;
  let found = key.id ? document.getElementById(key.id) : null;
  if (!found || !same(found)) {
    found = Array.from(document.querySelectorAll(key.tag)).find((n) => same(n) && n.className === key.cls
      && n.textContent === key.text && dataOf(n) === key.data && (!key.row || dataOf(rowOf(n)) === key.row));
  }
  if (found) found.focus({ preventScroll: true });
}

// Rulings a game's screen says to screen readers though they make no banner (Snap: a call heard, a race won, the
// Snap Pot): the history grows by no row, so a blind player heard nothing of a race (accessibility audit, s36).
const saidInfo = new Set();
function sayInfo(rulings) {
  const codes = screen && screen.said;
  const node = document.getElementById('said');
  if (!codes || !node) return;
  const lines = [];
  for (const r of rulings || []) {
    if (!r || r.severity !== 'info' || !codes.has(r.code)) continue;
    const key = `${r.seq}|${r.code}|${r.player}|${r.message}`;
    if (saidInfo.has(key)) continue;
    saidInfo.add(key);
    lines.push(r.message);
  }
  if (lines.length) node.textContent = lines.join(' ');
}

// What a game's screen shows of its information in a banner, and which banners that information ends (alerts.js).
function shownBy(current) {
  return { shown: (current && current.shown) || null, ends: (current && current.ends) || null };
}

let drawn = false;   // the screen has been drawn from some state

// A hand, round or deal scored (the history grew), or the game won, is said to screen readers with the totals: these
// are `info` rulings, which make no banner, so a blind player heard nothing of them.
function announceScore(before, after) {
  const rows = (after.history || []).length;
  if (rows <= (before.history || []).length && !(after.winner_text && after.winner_text !== before.winner_text)) return;
  const totals = Object.entries(after.totals || {}).map(([name, total]) => `${name} ${total}`).join(', ');
  const node = document.getElementById('announce');
  if (node) node.textContent = `${after.winner_text ? `${after.winner_text}. ` : `Row ${rows} scored. `}Totals: ${totals}.`;
}

// The tabs whose buttons a live event redraws or moves (the entry, the camera's events): a tap there just after
// another screen's entry is held (send); the Log's rows are reloaded apart, and its Save does not move.
const MOVING_TABS = new Set(['enter', 'table']);

function apply(next, { fresh = false, own = false } = {}) {
  // an older answer arriving after a newer message is dropped, but not the state a stream starts with: that is the
  // server's game now (a database put back from an older copy has fewer events: the screen froze on the newer one)
  if (!next || (next.seq < state.seq && !fresh)) return;
  if (fresh && next.seq < state.seq) { lastId = next.seq; drawn = false; }
  const entryBox = document.getElementById('entry');
  const entryFocused = document.activeElement && entryBox && entryBox.contains(document.activeElement);
  const same = next.seq === state.seq && next.counting === state.counting   // (a next game started: redrawn)
    && JSON.stringify(next.next || null) === JSON.stringify(state.next || null);
  if (drawn) announceScore(state, next);
  const turn = turnNow();   // (the turn the screen showed, for the buttons' meaning before the redraw)
  state = next;
  lastId = Math.max(lastId, next.seq);
  heardClock(next.now);
  // The same event heard twice (the writer's own answer, then the live stream): nothing to redraw,
  // and redrawing would replace the buttons under a finger that is about to tap the next one.
  if (same && drawn) return;
  const keep = entryFocused && screen && screen.keepEntry;   // typing: only the table is redrawn
  if (drawn && !keep && MOVING_TABS.has(activeTab())) { redrawing(turn); settling(); }   // own answers too
  if (keep) { drawTable(); drawHistory(); drawUndo(); return; }
  draw();
}

// -- the live stream -------------------------------------------------------------------------
// A live message leaves out what is as the stream last sent it (the history: 12.6 KB of a late Spades game's 14.7 KB
// message, sent again with every card; hub.KEPT), and an entry's answer what this screen said it holds (haveHeader): the
// screen keeps its own, where its digest says it is the same. Where it is not (a message gone astray; another screen's
// entry heard while this one's answer was on its way, which changed the history this screen had said it holds), the
// screen asks for the whole state.
function whole(next) {
  if (!next || next.seq < state.seq) return next;   // (an older message: apply drops it)
  for (const key of Object.keys(next.digests || {})) {
    if (key in next) continue;
    if (!state.digests || state.digests[key] !== next.digests[key] || !(key in state)) return null;
    next[key] = state[key];
  }
  return next;
}

const LIVE_TITLES = {
  open: 'live updates',
  connecting: 'connecting for live updates…',
  lost: 'no live updates (the server refused them or cannot be reached): this screen refreshes every few seconds',
};

// Not by colour alone: a filled dot when live, a hollow one while connecting, a cross when lost; the words for screen
// readers and a long press.
const LIVE_MARKS = { open: '●', connecting: '○', lost: '✕' };
function setLive(what) {
  const dot = document.getElementById('live');
  dot.dataset.state = what;
  dot.title = LIVE_TITLES[what] || what;
  dot.setAttribute('aria-label', dot.title);
  dot.textContent = LIVE_MARKS[what] || '○';
}

// While the stream is refused (the server has too many screens open, a proxy cut it), the screen still follows
// the game: it asks for the state at each retry.
async function refreshState() {
  try { apply((await api('GET', `/api/games/${gameId}`)).state); } catch (err) { /* the dot stays red */ }
}

function heard() { lastHeard = Date.now(); }

// The X-Have header of an entry: the digests of the parts of the state this screen holds (hub.KEPT), which the answer
// leaves out where they are the same (late in a Spades game 15 KB to every tap; half a second on a weak Wi-Fi).
function haveHeader() {
  const have = Object.keys(state.digests || {}).filter((key) => key in state).map((key) => `${key}=${state.digests[key]}`);
  return have.length ? { 'X-Have': have.join(',') } : {};
}

function connect() {
  if (source) source.close();
  setLive('connecting');
  // the phone and its "I am": the server tells the phones that say they are the same player (twins.js)
  const who = `phone=${phoneId()}&me=${encodeURIComponent(ctx.me)}`;
  source = new EventSource(`/api/games/${gameId}/stream?last=${lastId}&${who}`);
  source.addEventListener('open', () => { setLive('open'); heard(); });
  source.addEventListener('error', () => setLive(source.readyState === EventSource.CLOSED ? 'lost' : 'connecting'));
  source.addEventListener('state', (e) => { heard(); apply(JSON.parse(e.data), { fresh: true }); });
  // the backlog after a reconnect: its information is old news, not shown (what it settled still ends its banners)
  source.addEventListener('missed', (e) => { heard(); announce(JSON.parse(e.data).rulings, { quiet: true, ends: shownBy(screen).ends }); });
  source.addEventListener('event', (e) => {
    heard();
    const message = JSON.parse(e.data);
    const next = whole(message.state);
    if (next) apply(next); else refreshState();
    announceLive(message.rulings, message.state && message.state.now);
    sayInfo(message.rulings);
    if (activeTab() === 'log') loadLog();
  });
  source.addEventListener('ping', (e) => { heard(); heardClock(JSON.parse(e.data).now); });
  // the line beside "I am" comes or goes above the tabs and moves every button below it (155 px on a phone): a tap aimed
  // at a card 0.2 s later entered the card above it, nothing said (without scroll anchoring: WebKit; camlist, s48)
  source.addEventListener('twins', (e) => {
    heardTwins(JSON.parse(e.data));
    if (MOVING_TABS.has(activeTab())) { redrawing(); shiftedAt = redrawnAt; }
    drawTwins(ctx.me);
    settling();
  });
}

// An event's rulings heard long after the server made them are old news: a page frozen on a locked phone or in a
// background tab keeps its stream, and on resume it got a 20-second-old alert as a fresh banner, beeped and spoken,
// nothing saying it was old (sleep audit F3, session 45). Old: made more than AWAY_MS ago on the game's clock, by the
// event's state's `now` and this phone's measured clock (clock.js), not by a gap in what arrived (a paused server's
// entries are new when it judges them); shown as the reconnect backlog is, quietly, and said to be old. While the clock
// cannot say (being measured again after a sleep), they wait for it, in order; never dropped.
const AWAY_MS = 10000;
function awayMs() { return Number(document.documentElement.dataset.awayMs) || AWAY_MS; }   // (a test may shorten it)
let heldForClock = Promise.resolve();
let holding = 0;
function announceLive(rulings, made) {
  const say = (age) => {
    if (age !== null && age > awayMs()) announce(rulings, { quiet: true, away: true, ends: shownBy(screen).ends });
    else announce(rulings, shownBy(screen));
  };
  const age = holding ? null : ageOf(made);
  if (age !== null) { say(age); return; }
  holding += 1;
  heldForClock = heldForClock.then(measured).then(() => say(ageOf(made))).catch(() => {}).then(() => { holding -= 1; });
}

// A phone back from sleep (or a stream that went silent) reconnects and re-syncs.
setInterval(() => {
  if (source && source.readyState === EventSource.CLOSED) refreshState();
  if (Date.now() - lastHeard > heartbeatMs * 2.5 || (source && source.readyState === EventSource.CLOSED)) {
    clockStale();
    heard();
    connect();
  }
}, Math.min(5000, heartbeatMs));
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'visible') return;
  if (Date.now() - lastHeard > heartbeatMs) { clockStale(); heard(); connect(); }
});
// A page left for another (kept in the back/forward cache) must let its stream go: a browser opens only six
// connections to one server, and a phone that went through six games would wait for ever on the seventh.
window.addEventListener('pagehide', () => { if (source) { source.close(); source = null; } });
window.addEventListener('pageshow', (e) => { if (e.persisted) { clockStale(); heard(); connect(); } });

// -- tabs --------------------------------------------------------------------------------------
function activeTab() { return (location.hash || '#table').slice(1); }
function showTab() {
  let name = activeTab();
  if (!document.getElementById(`tab-${name}`)) name = 'table';
  for (const tab of document.querySelectorAll('.tab')) tab.hidden = tab.id !== `tab-${name}`;
  for (const link of document.querySelectorAll('#tabs a')) {
    link.classList.toggle('active', link.dataset.tab === name);
    if (link.dataset.tab === name) link.setAttribute('aria-current', 'page'); else link.removeAttribute('aria-current');
  }
  if (name === 'log') loadLog();
}
window.addEventListener('hashchange', showTab);

// -- the log: every event, with edit / undo / insert ---------------------------------------
let editing = null;

// The Log is reloaded as events arrive, but one request at a time and at most one every LOG_EVERY_MS: in a long
// game (thousands of events) each load costs the server a replay, and phones left on the Log tab during play
// slowed everyone's entries down.
const LOG_EVERY_MS = 1500;
let logLoading = null;
let logAgain = false;
let logAt = 0;

function loadLog() {
  if (logLoading) { logAgain = true; return logLoading; }
  const wait = Math.max(0, logAt + LOG_EVERY_MS - Date.now());
  logLoading = (async () => {
    if (wait) await new Promise((resolve) => setTimeout(resolve, wait));
    logAt = Date.now();
    await fetchLog();
  })().finally(() => {
    logLoading = null;
    if (logAgain) { logAgain = false; if (activeTab() === 'log') loadLog(); }
  });
  return logLoading;
}

// event number -> {sig: its entry as last loaded, node: its row}. A row whose entry is as it was keeps its node: every
// reload rebuilt all the rows and laid them all out again, on a slow phone 2 s of its main thread each time, every 1.5 s
// in a long game, and a tap waited 3.4 s before the page took it (slow-phone audit, session 45: 42 ms since)
let logRows = new Map();
async function fetchLog() {
  const list = document.getElementById('log');
  let entries;
  try {
    entries = (await api('GET', `/api/games/${gameId}/log`)).entries;
  } catch (err) {
    clear(list).append(el('li', { class: 'problem' }, err.message));
    return;
  }
  const shown = activeTab() === 'log' ? rowsInView(list) : new Map();
  // not while the edit form is open: it is above the rows, and scrolling kept the rows still but moved it off the
  // screen under the typing, Save's place taken by a row's Edit (a fourth review)
  const form = document.getElementById('edit-form');
  const scrolled = window.scrollY > 0 && (!form || form.hidden);
  const kept = heldRows(list);
  logSeen = entries.reduce((most, e) => Math.max(most, e.event.seq), 0);   // what the rows show: their `seen`
  const rows = [];
  const built = new Map();
  for (const entry of [...entries].reverse()) {
    const sig = JSON.stringify(entry);
    const old = logRows.get(entry.event.seq);
    const node = old && old.sig === sig ? old.node : logItem(entry);
    built.set(entry.event.seq, { sig, node });
    rows.push(node);
  }
  logRows = built;
  if (!rows.length) clear(list).append(el('li', { class: 'muted' }, 'No events yet.'));
  rows.forEach((node, i) => { if (list.children[i] !== node) list.insertBefore(node, list.children[i] || null); });
  while (list.children.length > Math.max(rows.length, 1)) list.lastChild.remove();
  if (!shown.size) { holdChangedRows(list.children, () => false, kept); return; }
  // Scrolled into the rows, they stay where they were on the screen (new ones come in above, out of view), as a
  // browser keeps them when rows are added, not all rebuilt; only if a row in view moved is a tap held (undoEvent).
  const [anchor, first] = shown.entries().next().value;
  const again = list.querySelector(`li[data-seq="${anchor}"]`);
  if (scrolled && again) window.scrollBy(0, again.getBoundingClientRect().top - first.top);
  // a row in view that moved, or whose buttons changed (another phone undid it: Restore came where Edit was, and a
  // tap on Edit put the event back: a fourth review), holds a tap on any row for SETTLE_MS, and on a row now in view
  // that moved, came into view or changed for DOUBLE_TAP_MS (a tap 400 ms after another phone's undo: session 38)
  const now = rowsInView(list);
  const moved = (is, was) => !is || Math.abs(is.top - was.top) > 2 || is.what !== was.what;
  if ([...shown].some(([seq, was]) => moved(now.get(seq), was))) { logMovedAt = Date.now(); settling(); }
  const changed = (row) => {
    const [is, was] = [now.get(row.dataset.seq), shown.get(row.dataset.seq)];
    return Boolean(is) && (!was || moved(is, was));
  };
  holdChangedRows(list.children, changed, kept);
}

function rowsInView(list) {   // the Log's rows on the screen: their event's number -> their top, status and buttons
  const rows = new Map();
  for (const row of list.children) {
    const box = row.getBoundingClientRect();
    if (!row.dataset.seq || box.bottom <= 0 || box.top >= window.innerHeight) continue;
    const acts = row.querySelector('.acts');
    rows.set(row.dataset.seq, { top: box.top, what: `${row.className}|${acts ? acts.textContent : ''}` });
  }
  return rows;
}

function logItem(entry) {
  const event = entry.event;
  const shown = entry.now || event;
  let text;
  if (event.type === 'undo') text = `undo #${event.target}`;
  else if (event.type === 'correct') text = `edit #${event.target} → ${describe({ ...event.event, seq: event.target })}`;
  else if (event.type === 'insert') text = `insert after #${event.after}: ${describe(shown)}`;
  else text = describe(shown);
  const acts = el('div', { class: 'acts' });
  const fromCamera = event.source === 'vision';
  if (canWrite && entry.status !== 'meta' && entry.status !== 'undone') {
    const base = event.type === 'insert' ? shown : shown;
    acts.append(
      el('button', { type: 'button', class: 'edit', onclick: () => openEditor('correct', event.seq, base) }, 'Edit'),
      fromCamera   // a camera event the players say is wrong: rejected by an undo of it
        ? el('button', { type: 'button', class: 'reject', onclick: (e) => undoEvent(event.seq, e.currentTarget) }, 'Reject')
        : el('button', { type: 'button', class: 'undo-this', onclick: (e) => undoEvent(event.seq, e.currentTarget) }, 'Undo'),
      el('button', { type: 'button', class: 'insert', onclick: () => openEditor('insert', event.seq, null) }, 'Insert after'));
  }
  if (canWrite && entry.status === 'undone') {
    acts.append(el('button', { type: 'button', class: 'redo', onclick: (e) => restore(event.seq, e.currentTarget) }, 'Restore'));
  }
  if (canWrite && entry.status === 'meta' && entry.in_effect) {
    acts.append(el('button', { type: 'button', class: 'undo-this', onclick: (e) => undoEvent(event.seq, e.currentTarget) },
      event.type === 'undo' ? `Restore #${event.target}` : 'Undo this edit'));
  }
  const rulings = (entry.rulings || []).filter((r) => r.severity !== 'info');
  return el('li', { class: entry.status, dataset: { seq: event.seq, source: event.source } },
    el('span', { class: 'seq' }, `#${event.seq}`),
    el('span', { class: 'what' },
      fromCamera ? el('span', { class: 'src-camera', title: 'seen by the camera' }, 'camera') : null, text, el('span', { class: 'status' }, entry.status === 'counts' ? '' : entry.status),
      rulings.length ? el('span', { class: 'muted' }, ' — ' + rulings.map((r) => r.message).join('; ')) : null),
    acts.children.length ? acts : null);
}

// An undo from the Log tab (Undo, Reject, Restore) is made on the rows as last loaded, and a refusal is shown there
// (it went to the Enter tab's problem line, hidden while the Log is open: a refused Reject looked done).
// The newest row is on top: a reload with new rows moved every row's buttons down one, and a tap just after it
// undid the row below the one meant (a second review, s38): held, if a row in view moved (fetchLog), for longer if
// it was the button's row; the edit form is above the rows, and stays put.
let logSeen = 0;
function logMoved(button, problem) {   // the rows, or the button's row, moved under the finger just now: not sent
  if (Date.now() - logMovedAt >= SETTLE_MS && !isHeld(button)) return false;
  showProblem(problem, MOVED);
  return true;
}

// button: a Log row's (the Enter tab's Undo has none); tapped: a Restore's, checked and its rows' `seen` taken when
// the finger landed (it fetches the Log first)
async function undoEvent(seq, button = null, tapped = null) {
  const fromLog = Boolean(button || tapped);
  const problem = document.getElementById(fromLog ? 'log-problem' : 'entry-problem');
  if (button && logMoved(button, problem)) return;
  const where = fromLog ? { seen: tapped ? tapped.seen : logSeen } : {};
  try { await send({ type: 'undo', target: seq }, problem, where); } catch (err) { /* shown */ }
}

// Undo the undo that took this event out. The hold is checked as the finger lands: after the fetch, a slow one let a
// tap on a row that had just moved restore the event of the row above (a third review, s38).
async function restore(seq, button) {
  const problem = document.getElementById('log-problem');
  if (logMoved(button, problem)) return;
  const seen = logSeen;
  let entries;
  try {
    entries = (await api('GET', `/api/games/${gameId}/log`)).entries;
  } catch (err) {
    showProblem(problem, err.message);
    return;
  }
  const undo = entries.filter((e) => e.event.type === 'undo' && e.event.target === seq && e.in_effect).pop();
  if (undo) await undoEvent(undo.event.seq, null, { seen });
}

function eventTypes() { return [...(B.spec.event_types || [])]; }

function fillTypes(select, chosen) {
  clear(select);
  for (const type of eventTypes()) select.append(el('option', { value: type, selected: type === chosen }, type));
}

// Opened from a Log row: made on the rows as last loaded (their `seen`, as the Log's Undo), not on the screen's
// newest state, or another phone's fix of that event, not in the rows yet, was silently overwritten (session 42)
function openEditor(kind, seq, event) {
  editing = { kind, seq, seen: logSeen, event };
  const form = document.getElementById('edit-form');
  document.getElementById('edit-title').textContent = kind === 'correct' ? `Edit event #${seq}` : `Insert an event after #${seq}`;
  fillTypes(document.getElementById('edit-type'), event ? event.type : eventTypes()[0]);
  document.getElementById('edit-fields').value = JSON.stringify(event ? payload(event) : {}, null, 1);
  showProblem(document.getElementById('edit-problem'), '');
  const special = clear(document.getElementById('edit-special'));
  // the editor hook may return {sync}: called before a save, it brings the fields up to what its lists show (false:
  // what it shows is not right, said on the edit's problem line, and nothing is saved)
  if (screen && screen.editor) editing.hook = screen.editor(special, ctx, { kind, seq, event, done: closeEditor }) || null;
  form.hidden = false;
  form.scrollIntoView({ block: 'nearest' });
}

function closeEditor() {
  editing = null;
  document.getElementById('edit-form').hidden = true;
}

function readFields(textarea, problem) {
  let fields;
  try { fields = JSON.parse(textarea.value || '{}'); } catch (err) {
    showProblem(problem, `the fields are not valid JSON: ${err.message}`);
    return null;
  }
  if (!fields || typeof fields !== 'object' || Array.isArray(fields)) {
    showProblem(problem, 'the fields must be a JSON object like {"player": "Beth"}');
    return null;
  }
  return fields;
}

function wireWriting() {
  if (!canWrite) return;
  const undo = document.getElementById('undo');
  undo.addEventListener('click', () => {   // the event its line names (drawEntry), not a newer one
    if (isHeld(undo)) {
      showProblem(document.getElementById('entry-problem'), `That Undo had just changed under your finger (it now says `
        + `#${undo.dataset.seq}), so the tap was not sent: tap again if you meant it.`);
      return;
    }
    if (Number(undo.dataset.seq) > 0) undoEvent(Number(undo.dataset.seq));
  });
  const rawType = document.getElementById('raw-type');
  clear(rawType);
  for (const type of [...eventTypes(), 'undo', 'correct', 'insert']) rawType.append(el('option', { value: type }, type));
  document.getElementById('raw-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const problem = document.getElementById('entry-problem');
    const fields = readFields(document.getElementById('raw-fields'), problem);
    if (!fields) return;
    try { await send({ ...fields, type: rawType.value }, problem); } catch (err) { /* shown */ }
  });
  document.getElementById('edit-cancel').addEventListener('click', closeEditor);
  document.getElementById('edit-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!editing) return;
    const problem = document.getElementById('edit-problem');
    if (editing.hook && editing.hook.sync && editing.hook.sync() === false) return;
    const fields = readFields(document.getElementById('edit-fields'), problem);
    if (!fields) return;
    let inner = { ...fields, type: document.getElementById('edit-type').value };
    if (screen && screen.edited) inner = screen.edited(inner, editing.event);   // the game's reading of the edit
    const body = editing.kind === 'correct'
      ? { type: 'correct', target: editing.seq, event: inner }
      : { type: 'insert', after: editing.seq, event: inner };
    const target = editing.seq;
    try { await send(body, problem, { seen: editing.seen }); closeEditor(); } catch (err) { return; /* shown */ }
    // back to the row edited, below the form (a long Log left it thousands of pixels away: a third review)
    await (logLoading || Promise.resolve());
    const row = document.querySelector(`#log li[data-seq="${target}"]`);
    if (row) row.scrollIntoView({ block: 'center' });
  });
}

// -- joining (sound) and sharing -------------------------------------------------------------
function wireJoin() {
  const box = document.getElementById('join-box');
  const me = document.getElementById('me');
  const key = `tablecall:${gameId}:me`;
  const stored = (write) => { try { return write(); } catch (err) { return null; } };   // storage blocked: not kept
  me.value = stored(() => localStorage.getItem(key)) || '';
  // a game played again or corrected: the phone is its player in the new one too, when that player is in it (every
  // phone arrived watching, so no buzzer of its own and no alerts of its own: roster audit F6, session 46); a phone
  // that chose in this game keeps its choice
  const carried = cameFrom && stored(() => localStorage.getItem(`tablecall:${cameFrom}:me`));
  if (carried && stored(() => localStorage.getItem(key)) === null && state.players.indexOf(carried) >= 0) {
    me.value = carried;
    stored(() => localStorage.setItem(key, carried));
  }
  setMe(me.value);
  me.addEventListener('change', () => {
    stored(() => localStorage.setItem(key, me.value));
    setMe(me.value);
    draw();
    drawTwins(me.value);
    if (source) connect();   // the server counts this phone as its new "I am" (twins.js)
  });
  document.getElementById('join-sound').addEventListener('click', () => {
    join();
    syncClock();   // joining measures the phone's clock against the server's (press times)
    box.classList.add('joined');
    document.getElementById('join-state').textContent = 'Sound and alerts on.';
  });
}

function wireShare() {
  if (!B.share) return;
  const player = document.getElementById('player-link');
  const viewer = document.getElementById('viewer-link');
  player.textContent = B.share.player[0];
  player.href = B.share.player[0];
  viewer.textContent = B.share.viewer[0];
  viewer.href = B.share.viewer[0];
  document.getElementById('share-lan').textContent = B.share.lan
    ? 'Phones on the same Wi-Fi scan this code to join as players.'
    : 'Only this computer can open these links: restart with "tablecall serve --lan" so phones can join.';
}

const camera = initCamera({
  gameId, role, canWrite, camera: B.camera, send, describe, visible: () => activeTab() === 'table',
});

wireJoin();
wireShare();
wireWriting();
showTab();
draw();
connect();
started();   // boot.js says so when a screen never gets here
