// Snap: the table (everyone's face-up top, the Snap Pot, matches and calls waiting to be settled),
// the **buzzer** (one big button per player: "Snap!", "Snap Pot!" or "Slap"), and entry of the deal
// and of the cards turned up.
//
// A press is timed on the phone the moment the finger lands (pointerdown), on the game clock
// (Date.now() plus the offset measured against the server, see ../clock.js), and sent as the
// event's `ts`: the referee settles calls by (ts, seq), so an earlier press wins even when its
// message arrives after a later one. When the tie window of the first waiting call has closed,
// plus the grace for slow phones' presses still on their way (the game's call_grace_ms, at least
// RESOLVE_GRACE_MS), a writing phone sends `resolve` so the table sees at once who won.
import { el, plural } from '../common.js';
import { cardGrid, cardSpan, pretty, typing } from './cards.js';
import { DECK, PLAYER, pickers, playerChoices } from './pickers.js';

export const RESOLVE_GRACE_MS = 1500;
const KIND_TEXT = { snap: 'Snap!', snap_pot: 'Snap Pot!', slap: 'Slap!' };

let flipper = null;          // who is turning a card (whose turn it is, unless another player is chosen)
let flipperTurn = null;      // the turn when flipper was set: a new turn follows the new player
let lastPress = null;        // {player, kind, ts}: this phone's last press, shown under the buzzer
let keyed = 0;               // when a key last pressed a buzzer: the click the browser makes of it is not a second press
// Pointer Events (iOS 13+, Chrome 55+): a finger, pen or mouse presses at pointerdown and its click is ignored;
// without them (iOS 12) the click is the press.
const POINTERS = typeof window.PointerEvent === 'function';
// pointerId -> {ctx, player, kind, ts}: a buzzer a finger (or the mouse) is on, with the time it landed. Kept here,
// not on the button: a redraw (another phone's call, a flip) replaces the buttons while the finger is down, and the
// lift then came to a new button and was lost; and per finger, so that two players on one screen both call.
const pending = new Map();
let listening = false;
let resolveTimer = null;
let resolveKey = null;
const quiet = el('p');       // failed automatic resolves are not shown to anyone

function clockText(info) {
  return info && info.synced ? `Clock synchronised with the server (±${Math.ceil(info.rtt / 2)} ms).` : 'Synchronising the clock…';
}
document.addEventListener('tablecall:clock', (e) => {
  const note = document.getElementById('clock-note');
  if (note) note.textContent = clockText({ synced: true, rtt: e.detail.rtt });
});

function pileOf(v, name) { return v.piles.find((p) => p.player === name); }

// -- the table ------------------------------------------------------------------------------------
function view(root, ctx) {
  const v = ctx.state.view;
  scheduleResolve(ctx);
  const bits = [v.phase === 'deal' ? 'waiting for the deal' : v.phase === 'over' ? 'game over' : `${v.flips} cards turned`];
  if (v.dealer) bits.push(`dealer ${v.dealer}`);
  root.append(el('p', { class: 'muted', id: 'snap-phase' }, bits.join(' · ')));
  const matched = new Set((v.matches || []).flatMap((m) => m.players));
  const grid = el('div', { class: 'seats', id: 'snap-piles' });
  for (const pile of v.piles) {
    grid.append(el('div', { class: `seat${v.turn === pile.player ? ' turn-now' : ''}${matched.has(pile.player) ? ' matched' : ''}${pile.out ? ' out' : ''}`,
      dataset: { player: pile.player } },
    el('div', { class: 'name' }, pile.player),
    el('div', { class: 'top-card' }, pile.top ? cardSpan(pile.top, 'big-card') : el('span', { class: 'muted' }, '—')),
    el('div', { class: 'stat' }, pile.out ? 'out' : `${pile.face_down} down · ${pile.face_up} up`)));
  }
  root.append(grid);
  if (v.pot && v.pot.cards) {
    root.append(el('p', { class: 'pot', id: 'snap-pot' }, 'Snap Pot: ', cardSpan(v.pot.top, 'big-card'), ` ${plural(v.pot.cards, 'card')}`));
  }
  for (const match of v.matches || []) {
    root.append(el('p', { class: 'call-out' }, 'Match: ', match.players.join(' & '), ' ',
      match.cards.map((c) => [cardSpan(c), ' ']), match.pot ? '(with the Snap Pot)' : ''));
  }
  if (v.pending_calls && v.pending_calls.length) root.append(pendingList(v));
}

function pendingList(v) {
  const first = Math.min(...v.pending_calls.map((c) => c.ts));
  return el('ul', { class: 'plain', id: 'pending-calls' }, v.pending_calls
    .slice().sort((a, b) => a.ts - b.ts || a.seq - b.seq)
    .map((c) => el('li', {}, `${c.player}: ${KIND_TEXT[c.kind] || c.kind} `,
      el('span', { class: 'muted' }, c.ts === first ? 'first' : `+${c.ts - first} ms`))));
}

// -- settling the calls once their window has closed ---------------------------------------------
function scheduleResolve(ctx) {
  const v = ctx.state.view;
  const waiting = ctx.canWrite && v.phase === 'play' && v.pending_calls && v.pending_calls.length && typeof v.window_closes === 'number';
  if (!waiting) {
    clearTimeout(resolveTimer);
    resolveTimer = null;
    resolveKey = null;
    return;
  }
  const key = `${ctx.state.seq}:${v.window_closes}`;
  if (key === resolveKey) return;
  clearTimeout(resolveTimer);
  resolveKey = key;
  const now = ctx.gameNow();
  // the game's own grace where it is longer (a group's 5 s for slow Wi-Fi was cut to 1.5 s: an options audit, s39)
  const grace = Math.max(RESOLVE_GRACE_MS, Number(ctx.state.options.call_grace_ms) || 0);
  const due = v.window_closes + grace - (now === null ? v.window_closes : now);
  resolveTimer = setTimeout(() => {   // a little jitter so that two phones seldom both send it
    resolveTimer = null;
    const still = ctx.state.view.pending_calls;
    if (still && still.length) ctx.send({ type: 'resolve' }, quiet).catch(() => {});
  }, Math.max(0, due) + Math.floor(Math.random() * 300));
}

// -- the buzzer ----------------------------------------------------------------------------------
function kinds(ctx) {
  const v = ctx.state.view;
  if (ctx.state.options.call_style === 'slap') return ['slap'];
  return v.pot && v.pot.cards ? ['snap', 'snap_pot'] : ['snap'];
}

async function press(ctx, player, kind, ts) {
  const body = { type: 'call', player, kind };
  if (ts !== null) body.ts = ts;
  lastPress = { player, kind, ts };
  const note = document.getElementById('press-note');
  if (note) note.textContent = `${player}: ${KIND_TEXT[kind]} pressed at ${ts === null ? 'arrival' : `${ts} ms`}`;
  try {
    await ctx.send(body, document.getElementById('snap-problem'));
  } catch (err) {
    if (err.status === 400 && String(err.message).includes("'ts'")) ctx.syncClock();   // measure the clock again
  }
}

function liftedOn(e) {
  const held = pending.get(e.pointerId);
  pending.delete(e.pointerId);
  if (!held || e.type !== 'pointerup') return;
  // a tap (the finger stayed put, whatever was redrawn under it), or a lift on a buzzer of the same player and call
  const still = Math.hypot(e.clientX - held.x, e.clientY - held.y) < 24;
  const under = document.elementFromPoint(e.clientX, e.clientY);
  const target = under && under.closest('button.buzz');
  if (still || (target && target.dataset.player === held.player && target.dataset.kind === held.kind)) {
    press(held.ctx, held.player, held.kind, held.ts);
  }
}

function buzzer(ctx) {
  if (!listening) {   // on the document: the lift may come after a redraw has replaced the button pressed
    listening = true;
    for (const type of ['pointerup', 'pointercancel']) document.addEventListener(type, liftedOn, true);
  }
  const v = ctx.state.view;
  const me = ctx.me;
  const names = v.piles.filter((p) => !p.out).map((p) => p.player);
  if (me && names.includes(me)) {   // this phone's own player first
    names.splice(names.indexOf(me), 1);
    names.unshift(me);
  }
  const box = el('div', { class: 'buzzer', id: 'buzzer' });
  for (const kind of kinds(ctx)) {
    const row = el('div', { class: `buzz-row${names.length > 2 ? ' many' : ''}` });
    for (const name of names) {
      const button = el('button', { type: 'button', class: `buzz ${kind}${name === me ? ' mine' : ''}`, dataset: { player: name, kind } },
        el('span', { class: 'who' }, name), el('span', { class: 'what' }, KIND_TEXT[kind]));
      // The press time is taken as the finger lands; the call goes when it lifts on a buzzer of the same player and
      // call (see liftedOn). A swipe that starts on a buzzer to scroll the page ends in pointercancel, or away from
      // it: no call (it was a false call, costing a card).
      button.addEventListener('pointerdown', (e) => {
        if (e.button !== 0) return;   // a right-click or a pen's side button: no call
        pending.set(e.pointerId, { ctx, player: name, kind, ts: ctx.gameNow(), x: e.clientX, y: e.clientY });
      });
      // A key presses as it goes down: the browser clicks a button on Space only when the key comes up (the press
      // was timed late, and lost when a redraw came first, as another phone's call does; accessibility audit,
      // session 36), and a key held down repeats.
      button.addEventListener('keydown', (e) => {
        if (e.key !== ' ' && e.key !== 'Enter' && e.key !== 'Spacebar') return;
        e.preventDefault();
        if (e.repeat) return;
        keyed = Date.now();
        press(ctx, name, kind, ctx.gameNow());
      });
      button.addEventListener('keyup', (e) => { if (e.key === ' ' || e.key === 'Spacebar') e.preventDefault(); });
      // A click a pointer made (detail: its count) was pressed at pointerdown; one a key made was pressed at keydown;
      // what is left is a screen reader's or a switch's click: the press.
      button.addEventListener('click', (e) => {
        if ((POINTERS && e.detail > 0) || Date.now() - keyed < 1000) return;
        press(ctx, name, kind, ctx.gameNow());
      });
      row.append(button);
    }
    box.append(row);
  }
  const info = ctx.clockInfo ? ctx.clockInfo() : { synced: false };
  box.append(el('p', { class: 'muted', id: 'press-note' }, lastPress
    ? `${lastPress.player}: ${KIND_TEXT[lastPress.kind]} pressed at ${lastPress.ts === null ? 'arrival' : `${lastPress.ts} ms`}`
    : 'Press times are taken on this phone.'),
  el('p', { class: 'muted', id: 'clock-note' }, clockText(info)));
  return box;
}

// -- entry: the deal, cards turned up, the buzzer ------------------------------------------------------
function dealForm(ctx) {
  const form = el('form', { class: 'card', id: 'deal-form', novalidate: true });
  const dealer = el('select', { id: 'snap-dealer', 'aria-label': 'dealer' });
  for (const name of ctx.state.players) dealer.append(el('option', { value: name }, name));
  form.append(el('h2', {}, 'The deal'), el('label', { class: 'field inline' }, 'Dealer', dealer),
    el('p', { class: 'muted' }, 'The whole deck, one card at a time from the dealer\'s left.'),
    el('button', { type: 'submit', class: 'primary wide', id: 'deal' }, 'Deal all 52 cards'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    ctx.send({ type: 'deal', dealer: dealer.value }, document.getElementById('snap-problem')).catch(() => {});
  });
  return form;
}

function flipEntry(ctx) {
  const v = ctx.state.view;
  const inGame = v.piles.filter((p) => !p.out).map((p) => p.player);
  if (!flipper || !inGame.includes(flipper) || flipperTurn !== v.turn) { flipper = v.turn; flipperTurn = v.turn; }
  const who = flipper || v.turn;
  const box = el('div', { class: 'card', id: 'flip-entry' });
  const choose = el('div', { class: 'row', id: 'flipper' });
  for (const name of inGame) {
    choose.append(el('button', { type: 'button', class: name === who ? 'primary' : '', dataset: { player: name },
      onclick: () => { flipper = name; ctx.redraw(); } }, name === v.turn ? `${name} (turn)` : name));
  }
  box.append(el('h2', {}, `${who} turns up:`), choose);
  const showing = new Set(v.piles.map((p) => p.top).concat(v.pot && v.pot.top ? [v.pot.top] : []).filter(Boolean));
  box.append(cardGrid({ id: 'flip-cards', exclude: showing, onPick: (card) => {
    // The entry goes back to the turn's player with the next drawing, the live stream's copy or the answer, whichever
    // comes first (a flip out of turn leaves the turn where it was); it was drawn again at the answer, which replaced
    // the next turn's cards under a finger on its way to one, and the stream's copy first showed the player chosen
    // by hand until then. A flip not sent (refused on the phone or by the server) keeps the player chosen.
    flipper = null;
    ctx.send({ type: 'flip', player: who, card }, document.getElementById('snap-problem'))
      .catch(() => { if (!flipper) flipper = who; });
  } }));
  const pile = pileOf(v, who);
  if (pile && pile.face_down === 0 && pile.face_up > 0) {
    box.append(el('button', { type: 'button', class: 'wide', id: 'turn-over',
      onclick: () => ctx.send({ type: 'turn_over', player: who }, document.getElementById('snap-problem')).catch(() => {}) },
    `${who} turns the face-up pile over`));
  }
  return box;
}

function entry(root, ctx) {
  const v = ctx.state.view;
  root.append(el('p', { class: 'problem', id: 'snap-problem', role: 'alert', hidden: true }));
  if (v.phase === 'deal') { root.append(dealForm(ctx)); return; }
  if (v.phase === 'over' || ctx.state.finished) {
    root.append(el('p', { class: 'card' }, `The game is over${v.winner ? `: ${v.winner.join(' & ')} won` : ''}. Undo an event to go on.`));
    return;
  }
  root.append(buzzer(ctx));
  if (v.pending_calls && v.pending_calls.length) {
    root.append(el('div', { class: 'card' }, el('h2', { class: 'small' }, 'Waiting to be settled'), pendingList(v),
      el('button', { type: 'button', id: 'resolve', onclick: () => ctx.send({ type: 'resolve' }, document.getElementById('snap-problem')).catch(() => {}) },
        'Settle now')));
  }
  root.append(flipEntry(ctx));
}

function describe(event) {
  switch (event.type) {
    case 'call': return `${event.player} ${KIND_TEXT[event.kind] || (event.slap ? 'Slap!' : 'called')} at ${event.ts} ms`;
    case 'flip': return `${event.player} turned up ${pretty(event.card)}`;
    case 'turn_over': return `${event.player} turned the face-up pile over`;
    case 'deal': return `${event.dealer} dealt`;
    case 'resolve': return 'calls settled';
    default: return null;
  }
}

// The Log's Edit and Insert: who and which card from lists (a camera misread put right without typing JSON).
const editor = pickers({
  flip: [PLAYER, { key: 'card', label: 'Card', choices: DECK }],
  call: [PLAYER, { key: 'kind', label: 'Call', choices: Object.entries(KIND_TEXT) }],
  turn_over: [PLAYER],
  deal: [{ key: 'dealer', label: 'Dealer', choices: playerChoices }],
});

// Rulings that make no banner but a player must hear: a screen reader says them (table.js `sayInfo`).
const said = new Set(['call_heard', 'late_call', 'snap_won', 'snap_pot_won', 'snap_pot_formed', 'snap_pot_grown',
  'penalty_paid', 'match_gone']);

// Who won a call, or where the piles went, shows in a banner too: the "Match!" banner stayed up after the match was
// won, and nothing on the screen said who won it (spit/snap phones audit, s38). A match over ends its banner.
const shown = new Set(['late_call', 'snap_won', 'snap_pot_won', 'snap_pot_formed', 'snap_pot_grown']);
const ends = { match_gone: { code: 'match', sameData: true } };

export default { view, entry, describe, editor, said, shown, ends, turn: (state) => state.view.turn, get keepEntry() { return typing(); } };
