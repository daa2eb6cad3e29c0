// Push: the table (the deal and its requirement, whose turn and what is awaited, the discard and the
// stock, each hand, the melds) and manual entry, step by step: the deal, burying a wild upcard,
// taking the discard or pushing, drawing from the stock, melds (sets and runs, with what the wilds
// stand for), lay-offs, swaps, the discard, and the cards left in the hands when a deal ends. A whole
// deal can also be scored from the hands alone, and the history edits a past deal's hands (a
// `correct` event of its `deal_end`).
import { api, clear, draftOver, draftRefused, draftSeen, el, showProblem, watchDraft } from '../common.js';
import { cardField, cardSpan, pretty, readCards, typing } from './cards.js';
import { PLAYER, pickers, playerChoices } from './pickers.js';

const DEAL_SIZES = { 1: 6, 2: 7, 3: 8, 4: 9, 5: 10 };

let actor = null;       // who the play entry is for (whose turn it is, unless another player is chosen)
let actorTurn = null;   // the turn when actor was set: a new turn follows the new player
let actorMeant = false; // actor set by "Enter Alex's discard": entries for the turn's player are not asked again
const drafts = {};      // each player's meld builder rows, [{kind, cards, wilds}], until laid or the turn's discard
let draftsDeal = null;  // the deal they belong to: a new deal starts afresh
let editing = null;     // {number, seq, event}: a past deal's hands being corrected
const typed = {};       // each player's discard, lay-off and swap fields as typed ({discard: {card}, ...}), for this turn
let typedTurn = null;   // the deal and turn they belong to: a new turn starts afresh
let ending = null;      // a deal-end form's draft ({values, out, seen, rows}): kept across live redraws until it is sent
let endedNote = '';     // said once on the problem line: the deal a refused draft was for was scored on another screen

function scored(ctx) { return (ctx.state.history || []).length; }

// A refused draft whose deal another screen has since scored is dropped (common.js draftOver), and its refusal ("the
// cards left in David's hand are needed") gives way to saying so: it stayed under "Waiting for deal 2" as if the
// deal were not scored (pushpace audit F4, session 47).
function endingDraft(ctx) {
  const rows = scored(ctx);
  if (draftOver(ending, rows)) {
    if (rows > ending.rows) endedNote = `Deal ${ending.rows + 1} was scored on another screen meanwhile (see the History): the cards left entered here for it were not used.`;
    ending = null;
  }
  if (!ending) ending = { values: {}, out: null, seen: null, stale: false, rows };
  return ending;
}

// A deal's end as typed: sent with the `seen` of when the form was first touched, so that one another phone or the
// camera entered meanwhile is refused, not scored twice (common.js watchDraft).
async function sendEnding(ctx, body, after = null) {
  const started = ending;
  try {
    await ctx.send(body, problem(), { seen: started ? draftSeen(started, ctx.state.seq) : ctx.state.seq });
    ending = null;
    if (after) after();
    ctx.redraw();
  } catch (err) { draftRefused(started, err); }
}

// The deal-end form of the table now, with what was typed in it so far (or the hands the referee knows).
function endingForm(ctx, { title, values = {}, out = '', after = null }) {
  const draft = endingDraft(ctx);
  const form = handsForm(ctx, { title, button: 'Score the deal', values: { ...values, ...draft.values },
    out: draft.out === null ? out : draft.out, keep: draft, onSubmit: (body) => sendEnding(ctx, body, after) });
  watchDraft(form, draft, () => ctx.state.seq, () => scored(ctx));
  return form;
}

function problem() { return document.getElementById('push-problem'); }

// `ask`: a question asked before it is sent (table.js send)
// `seen`: the game as it was when the form was first typed in (kept forms): the same entry made meanwhile on another
// screen is then this one, answered as already logged, not entered twice (a review, session 47)
async function send(ctx, body, after = null, ask = null, seen = null) {
  const answered = actorMeant && body.player === ctx.state.view.turn;
  try {
    const result = await ctx.send(body, problem(), seen == null ? { ask, answered } : { ask, answered, seen });
    if (after) after(result);
    ctx.redraw();
    return true;
  } catch (err) { return false; }
}

function leftOf(players, name) { return players[(players.indexOf(name) + 1) % players.length]; }

// "JK=5H, 2C=7S" -> {"JK": "5H", "2C": "7S"} (null when empty)
export function readWilds(text) {
  const out = {};
  for (const pair of String(text || '').split(/[\s,;]+/).filter(Boolean)) {
    const [wild, stands] = pair.split('=');
    if (!wild || !stands) throw new Error(`write what a wild stands for as JK=5H, not "${pair}"`);
    out[readCards(wild)[0]] = readCards(stands)[0];
  }
  return Object.keys(out).length ? out : null;
}

// -- the table ------------------------------------------------------------------------------------
function view(root, ctx) {
  const v = ctx.state.view;
  const bits = [];
  if (v.phase === 'waiting') bits.push(`next: deal ${v.deal + 1} of 5`);
  else if (v.deal) bits.push(`deal ${v.deal} of 5 (${v.cards_dealt} cards)`);
  if (v.requirement && v.phase !== 'waiting') bits.push(`first meld: ${v.requirement}`);
  // between deals the deal passes left: the last dealer named there read as the next one
  if (v.dealer && v.phase === 'waiting') bits.push(`next dealer ${leftOf(ctx.state.players, v.dealer)}`);
  else if (v.dealer && v.phase !== 'over') bits.push(`dealer ${v.dealer}`);
  root.append(el('p', { class: 'muted', id: 'push-deal' }, bits.join(' · ')));
  root.append(el('p', { class: 'big', id: 'push-awaiting' }, v.phase === 'over' ? 'The game is over.' : `Waiting for ${v.awaiting}`));
  if (v.phase === 'play' || v.phase === 'counting') {
    root.append(el('p', { id: 'push-piles' }, 'Discard: ', v.discard.length ? cardSpan(v.discard[v.discard.length - 1], 'big-card') : '—',
      el('span', { class: 'muted' }, ` · ${v.discard.length} in the pile · stock ${v.stock}`)));
    const hands = el('div', { class: 'seats', id: 'push-hands' });
    for (const name of ctx.state.players) {
      const h = v.hands[name];
      hands.append(el('div', { class: `seat${v.turn === name ? ' turn-now' : ''}`, dataset: { player: name } },
        el('div', { class: 'name' }, name, h.laid ? ' ✓' : ''),
        el('div', { class: 'stat' }, `${h.count} card${h.count === 1 ? '' : 's'}${h.laid ? ' · laid' : ''}`),
        h.known.length ? el('div', { class: 'stat' }, h.known.map((c) => [cardSpan(c), ' '])) : null));
    }
    root.append(hands);
  }
  if (v.melds.length) root.append(meldList(v));
  if (v.pending_wild) {
    const p = v.pending_wild;
    root.append(el('p', { class: 'call-out' }, `${p.player} must put the ${pretty(p.wild)} (from meld #${p.meld}) into another meld now.`));
  }
}

function meldList(v) {
  return el('ol', { class: 'plain melds', id: 'push-melds' }, v.melds.map((m) => el('li', { dataset: { meld: m.number } },
    el('span', { class: 'muted' }, `#${m.number} ${m.owner} ${m.kind} `),
    m.cards.map((c, i) => [cardSpan(c), m.stands_for[i] !== c ? el('span', { class: 'muted' }, `=${pretty(m.stands_for[i])}`) : null, ' ']))));
}

// -- entry ----------------------------------------------------------------------------------------
function dealForm(ctx) {
  const v = ctx.state.view;
  const players = ctx.state.players;
  const number = v.deal + 1;
  const dealer = el('select', { id: 'push-dealer', 'aria-label': 'dealer' });
  for (const name of players) dealer.append(el('option', { value: name }, name));
  dealer.value = v.dealer ? leftOf(players, v.dealer) : players[0];
  const upcard = el('input', { type: 'text', id: 'push-upcard', autocomplete: 'off', autocapitalize: 'characters', placeholder: 'e.g. 6D', 'aria-label': 'upcard' });
  const form = el('form', { class: 'card', id: 'deal-form', novalidate: true },
    el('h2', {}, `Deal ${number}: ${DEAL_SIZES[number]} cards each`),
    el('label', { class: 'field inline' }, 'Dealer', dealer), el('label', { class: 'field inline' }, 'Upcard', upcard),
    el('button', { type: 'submit', class: 'primary wide', id: 'deal' }, `Start deal ${number}`));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const [card] = readCards(upcard.value);
    if (!card) { showProblem(problem(), 'Type the upcard, like 6D (JK for a joker).'); return; }
    send(ctx, { type: 'deal', dealer: dealer.value, upcard: card });
  });
  return form;
}

// The cards left in each hand (the end of a live deal, a score-only deal, or a correction).
// `values` ({name: [cards]}) and `out` are the starting point; `keep` (an object), if given, gets
// what is typed as it is typed, so that a redraw (another phone's event) does not lose it.
function handsForm(ctx, { title, button, values = {}, out = '', keep = null, onSubmit }) {
  const players = ctx.state.players;
  const form = el('form', { class: 'card', id: 'hands-form', novalidate: true }, el('h2', {}, title));
  const outSelect = el('select', { id: 'push-out', 'aria-label': 'who went out' }, el('option', { value: '' }, 'nobody (the stock ran out)'),
    players.map((n) => el('option', { value: n }, n)));
  outSelect.value = out || '';
  if (keep) outSelect.addEventListener('change', () => { keep.out = outSelect.value; });
  form.append(el('label', { class: 'field inline' }, 'Went out', outSelect));
  const fields = {};
  for (const name of players) {
    fields[name] = cardField({ label: `${name}'s cards left`, value: (values[name] || []).join(' '), placeholder: 'e.g. 5H KD JK', jokers: true });
    fields[name].input.dataset.player = name;
    if (keep) fields[name].input.addEventListener('input', () => { keep.values[name] = fields[name].cards(); });
    form.append(fields[name].node);
  }
  // the player who went out holds no cards: no field to fill in for them (it was there, and ignored)
  const showFields = () => { for (const name of players) fields[name].node.hidden = name === outSelect.value; };
  outSelect.addEventListener('change', showFields);
  showFields();
  form.append(el('button', { type: 'submit', class: 'primary wide', id: 'send-hands' }, button));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const hands = {};
    for (const name of players) {
      if (name === outSelect.value) { hands[name] = []; continue; }
      const cards = fields[name].cards();
      if (cards.length) hands[name] = cards;   // left blank: not reported (the referee counts what it saw, or asks)
    }
    const body = { type: 'deal_end', hands };
    if (outSelect.value) body.out = outSelect.value;
    onSubmit(body);
  });
  return form;
}

function drawStep(ctx, box, who) {
  const v = ctx.state.view;
  const top = v.discard[v.discard.length - 1];
  const row = el('div', { class: 'row', id: 'draw-buttons' });
  // The turn's player has drawn and not yet discarded: a draw for another player now ends that turn without a discard
  // (a foul). Beth, entering her take of Alex's discard before Alex had entered it, was offered this stock draw alone,
  // as the obvious tap: it went in, and Alex's discard then went in as Beth's (pushpace audit F1, session 47).
  const early = who !== v.turn && v.step === 'play';
  let ask = null;
  if (early) {
    box.append(el('p', { id: 'push-not-in' }, `${v.turn}'s discard is not in yet: enter it for ${v.turn}, or wait for it.`));
    row.append(el('button', { type: 'button', class: 'primary', dataset: { act: 'turn' },
      onclick: () => { actor = v.turn; actorTurn = v.turn; actorMeant = true; ctx.redraw(); } }, `Enter ${v.turn}'s discard`));
    ask = `${v.turn}'s discard is not in yet: a draw for ${who} now ends ${v.turn}'s turn without one (a foul). `
      + `Enter ${v.turn}'s discard first, or tap again to draw for ${who}.`;
  }
  if (v.step === 'draw' && top) {
    row.append(el('button', { type: 'button', class: 'primary', dataset: { act: 'take' },
      onclick: () => send(ctx, { type: 'draw', player: who, from: 'discard' }) }, 'Take the ', cardSpan(top)),
    el('button', { type: 'button', dataset: { act: 'push' }, onclick: () => send(ctx, { type: 'push', player: who }) }, 'Push it left'));
  }
  row.append(el('button', { type: 'button', class: !early && (v.step === 'stock' || !top) ? 'primary' : '', dataset: { act: 'stock' },
    onclick: () => send(ctx, { type: 'draw', player: who, from: 'stock' }, null, ask) }, 'Draw from the stock'));
  box.append(row);
}

function meldBuilder(ctx, who) {
  // the player's own (a refused meld kept to put right was carried into the next player's turn, and lost when
  // "Entering for" was tapped away and back: two reviews)
  if (ctx.state.view.deal !== draftsDeal) { for (const name of Object.keys(drafts)) delete drafts[name]; draftsDeal = ctx.state.view.deal; }
  if (!drafts[who]) drafts[who] = [{ kind: 'set', cards: '', wilds: '' }];
  const melds = drafts[who];
  const form = el('form', { class: 'card', id: 'meld-form', novalidate: true }, el('h2', {}, `${who} melds`));
  const rows = melds.map((m, i) => {
    const kind = el('select', { 'aria-label': `meld ${i + 1} kind`, dataset: { meld: i } },
      el('option', { value: 'set' }, 'set'), el('option', { value: 'run' }, 'run'));
    kind.value = m.kind;
    kind.addEventListener('change', () => { m.kind = kind.value; });
    const cards = cardField({ label: `Meld ${i + 1}: cards`, value: m.cards, jokers: true });
    cards.input.dataset.meld = i;
    cards.input.addEventListener('input', () => { m.cards = cards.input.value; });
    const wilds = el('input', { type: 'text', value: m.wilds, placeholder: 'e.g. JK=8S (optional)', autocomplete: 'off',
      autocapitalize: 'characters', 'aria-label': `meld ${i + 1} wilds`, dataset: { meld: i } });
    wilds.addEventListener('input', () => { m.wilds = wilds.value; });
    form.append(el('fieldset', {}, el('legend', {}, `Meld ${i + 1}`), kind, cards.node,
      el('label', { class: 'field' }, 'Wilds stand for', wilds)));
    return { kind, cards, wilds };
  });
  form.append(el('div', { class: 'row' },
    el('button', { type: 'button', id: 'add-meld', onclick: () => { melds.push({ kind: 'set', cards: '', wilds: '' }); ctx.redraw(); } }, '+ another meld'),
    melds.length > 1 ? el('button', { type: 'button', onclick: () => { melds.pop(); ctx.redraw(); } }, '− last') : null),
  el('button', { type: 'submit', class: 'primary wide', id: 'send-meld' }, 'Lay the melds'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    let list;
    try {
      list = rows.map((r, i) => {
        const cards = r.cards.cards();
        if (cards.length < 3) throw new Error(`meld ${i + 1} needs at least 3 cards`);
        const wilds = readWilds(r.wilds.value);
        return { kind: r.kind.value, cards, ...(wilds ? { wilds } : {}) };
      });
    } catch (err) { showProblem(problem(), err.message); return; }
    // a meld the referee refused (logged as a foul: the cards stay in the hand) stays in the builder to put right
    send(ctx, { type: 'meld', player: who, melds: list }, (result) => {
      const rulings = (result && result.rulings) || [];
      if (rulings.some((r) => r.code === 'requirement_not_met')) return;   // none was laid
      const refused = new Set(rulings.filter((r) => r.code === 'invalid_meld').map((r) => r.data && r.data.meld));
      if (refused.size) drafts[who] = melds.filter((m, i) => refused.has(i + 1)); else delete drafts[who];
    });
  });
  return form;
}

// A form's fields as typed, kept across live redraws until sent or the turn changes: the discard, lay-off and swap
// forms were built empty at every redraw, and a card typed on the pad (which leaves no field focused, so the entry is
// redrawn) was lost when another phone's entry came in; Discard then said "Type the card discarded" (pushpace audit F3,
// session 47). As the meld builder keeps its rows (`drafts`).
function typedFor(ctx, who, form) {
  const v = ctx.state.view;
  const turn = `${v.deal}|${v.turn}`;
  if (typedTurn !== turn) { for (const name of Object.keys(typed)) delete typed[name]; typedTurn = turn; }
  if (!typed[who]) typed[who] = {};
  if (!typed[who][form]) typed[who][form] = {};
  return typed[who][form];
}

// a field's text, or a list's choice (one still offered), put back from `store[key]` and kept there as it changes
function kept(store, key, input, seq) {
  const offered = input.tagName !== 'SELECT' || [...input.options].some((o) => o.value === store[key]);
  if (key in store && offered) input.value = store[key];
  for (const type of ['input', 'change']) {
    input.addEventListener(type, () => { store[key] = input.value; if (store.seen == null) store.seen = seq(); });
  }
}

function sent(who, form) { if (typed[who]) delete typed[who][form]; }

function meldSelect(v, id) {
  const select = el('select', { id, 'aria-label': 'meld' });
  for (const m of v.melds) select.append(el('option', { value: String(m.number) }, `#${m.number} ${m.owner} ${m.kind} ${m.cards.map(pretty).join(' ')}`));
  return select;
}

// A meld as a lay-off or swap names it: its number on the screens, and its origin (the event that laid it), which
// an earlier meld corrected or inserted later does not change: by number alone the lay-off then went onto another
// player's meld (the Push-on-phones audit).
function meldNamed(v, value) {
  const meld = v.melds.find((m) => String(m.number) === String(value));
  return { meld: Number(value), ...(meld && meld.origin ? { origin: meld.origin } : {}) };
}

function layoffForm(ctx, who) {
  const v = ctx.state.view;
  const meld = meldSelect(v, 'layoff-meld');
  if (v.pending_wild && v.pending_wild.player === who) meld.value = String((v.melds.find((m) => m.number !== v.pending_wild.meld) || {}).number || '');
  const cards = cardField({ label: 'Cards', jokers: true, value: v.pending_wild && v.pending_wild.player === who ? v.pending_wild.wild : '' });
  const wilds = el('input', { type: 'text', placeholder: 'e.g. JK=9S (optional)', autocomplete: 'off', 'aria-label': 'wilds' });
  const store = typedFor(ctx, who, 'layoff');
  const seq = () => ctx.state.seq;
  kept(store, 'meld', meld, seq); kept(store, 'cards', cards.input, seq); kept(store, 'wilds', wilds, seq);
  const form = el('form', { class: 'card', id: 'layoff-form', novalidate: true }, el('h2', {}, `${who} lays off`),
    el('label', { class: 'field' }, 'On meld', meld), cards.node, el('label', { class: 'field' }, 'Wilds stand for', wilds),
    el('button', { type: 'submit', class: 'wide', id: 'send-layoff' }, 'Lay off'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    let declared;
    try { declared = readWilds(wilds.value); } catch (err) { showProblem(problem(), err.message); return; }
    const list = cards.cards();
    if (!list.length) { showProblem(problem(), 'Type the cards laid off.'); return; }
    send(ctx, { type: 'layoff', player: who, ...meldNamed(v, meld.value), cards: list, ...(declared ? { wilds: declared } : {}) },
      () => sent(who, 'layoff'), null, store.seen);
  });
  return form;
}

function swapForm(ctx, who) {
  const v = ctx.state.view;
  const meld = meldSelect(v, 'swap-meld');
  const card = el('input', { type: 'text', placeholder: 'natural card, e.g. 8S', autocomplete: 'off', 'aria-label': 'natural card' });
  const wild = el('input', { type: 'text', placeholder: 'the wild, e.g. JK', autocomplete: 'off', 'aria-label': 'wild' });
  const store = typedFor(ctx, who, 'swap');
  const seq = () => ctx.state.seq;
  kept(store, 'meld', meld, seq); kept(store, 'card', card, seq); kept(store, 'wild', wild, seq);
  const form = el('form', { class: 'card', id: 'swap-form', novalidate: true }, el('h2', {}, `${who} swaps a wild`),
    el('label', { class: 'field' }, 'In meld', meld), el('div', { class: 'row' }, card, wild),
    el('button', { type: 'submit', class: 'wide', id: 'send-swap' }, 'Swap'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const [natural] = readCards(card.value);
    const [freed] = readCards(wild.value);
    if (!natural || !freed) { showProblem(problem(), 'Type the natural card and the wild it replaces.'); return; }
    send(ctx, { type: 'swap', player: who, ...meldNamed(v, meld.value), card: natural, wild: freed }, () => sent(who, 'swap'), null, store.seen);
  });
  return form;
}

function discardForm(ctx, who) {
  const v = ctx.state.view;
  const known = v.hands[who] ? v.hands[who].known : [];
  // typed, or tapped on the card pad (with phone entry the referee rarely knows the hand, so it is typed most turns)
  const field = cardField({ label: 'Card discarded', id: 'discard-card', placeholder: 'e.g. 9H', jokers: true });
  kept(typedFor(ctx, who, 'discard'), 'card', field.input, () => ctx.state.seq);
  const form = el('form', { class: 'card', id: 'discard-form', novalidate: true }, el('h2', {}, `${who} discards`));
  if (known.length) {
    form.append(el('div', { class: 'row' }, [...new Set(known)].map((c) => el('button', { type: 'button', dataset: { card: c },
      onclick: () => send(ctx, { type: 'discard', player: who, card: c }, () => { delete drafts[who]; }) }, cardSpan(c)))));
  }
  form.append(field.node, el('button', { type: 'submit', class: 'primary wide', id: 'send-discard' }, 'Discard'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const cards = field.cards();
    if (!cards.length) { showProblem(problem(), 'Type the card discarded, like 9H.'); return; }
    if (cards.length > 1) { showProblem(problem(), `A discard is one card, not ${cards.join(' ')}: remove the extra with ⌫.`); return; }
    const [card] = cards;
    send(ctx, { type: 'discard', player: who, card }, () => { delete drafts[who]; sent(who, 'discard'); });   // the turn is over
  });
  return form;
}

const unfolded = new Set();   // "player:form" of the folded forms opened for that player here (a redraw keeps them)
function folded(key, who, title, form, open = false) {
  const mark = `${who}:${key}`;
  const summary = el('summary', {}, title);
  const box = el('details', { class: 'card fold', id: `${key}-box`, open: open || unfolded.has(mark) }, summary, form);
  // only a person's opening or closing is kept (one the screen opened, for a freed wild, is not)
  summary.addEventListener('click', () => setTimeout(() => { if (box.open) unfolded.add(mark); else unfolded.delete(mark); }));
  form.classList.remove('card');
  return box;
}

function playEntry(root, ctx) {
  const v = ctx.state.view;
  const players = ctx.state.players;
  if (!actor || !players.includes(actor) || actorTurn !== v.turn) { actor = v.turn; actorTurn = v.turn; actorMeant = false; }
  const who = actor;
  const choose = el('div', { class: 'row', id: 'push-actor' }, players.map((name) => el('button', { type: 'button',
    class: name === who ? 'primary' : '', dataset: { player: name }, onclick: () => { actor = name; actorMeant = false; ctx.redraw(); } },
  name === v.turn ? `${name} (turn)` : name)));
  root.append(el('p', { class: 'muted' }, 'Entering for:'), choose);
  if (v.step === 'bury') {
    const card = el('input', { type: 'text', id: 'new-upcard', placeholder: 'e.g. 9C', autocomplete: 'off', 'aria-label': 'new upcard' });
    const form = el('form', { class: 'card', id: 'upcard-form', novalidate: true },
      el('h2', {}, `The upcard ${pretty(v.discard[v.discard.length - 1])} is wild: bury it and turn`), el('div', { class: 'row' }, card,
        el('button', { type: 'submit', class: 'primary' }, 'Turned')));
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const [c] = readCards(card.value);
      if (!c) { showProblem(problem(), 'Type the card turned, like 9C.'); return; }
      send(ctx, { type: 'upcard', card: c });
    });
    root.append(form);
  }
  const drawBox = el('div', { class: 'card', id: 'push-draw' }, el('h2', {}, `${who} draws`));
  drawStep(ctx, drawBox, who);
  if (v.step !== 'play' || who !== v.turn) root.append(drawBox);
  root.append(meldBuilder(ctx, who));
  if (v.melds.length) {   // folded (kept open across redraws once opened): the discard, every turn's, comes sooner
    const pending = Boolean(v.pending_wild && v.pending_wild.player === who);
    root.append(folded('layoff', who, 'Lay off on a meld', layoffForm(ctx, who), pending),
      folded('swap', who, 'Swap a wild out of a meld', swapForm(ctx, who)));
  }
  root.append(discardForm(ctx, who));
  if (v.step === 'play' && who === v.turn) root.append(el('details', { class: 'card' }, el('summary', {}, 'Draw again (recorded as a foul)'), drawBox));
}

function entry(root, ctx) {
  const v = ctx.state.view;
  const line = el('p', { class: 'problem', id: 'push-problem', role: 'alert', hidden: true });
  root.append(line);
  endingDraft(ctx);   // (a refused one whose deal was scored meanwhile is dropped: said here, in its refusal's place)
  if (endedNote) { showProblem(line, endedNote); endedNote = ''; }
  if (v.phase === 'over') { root.append(el('p', { class: 'card' }, 'The game is over (five deals). Edit a deal in the History to change it.')); return; }
  root.append(el('p', { class: 'big' }, `Waiting for ${v.awaiting}`));
  if (v.phase === 'waiting') {
    root.append(dealForm(ctx));
    const form = endingForm(ctx, { title: `Deal ${v.deal + 1}: cards left` });
    root.append(el('details', { class: 'card', id: 'score-only', open: ending.seen !== null },
      el('summary', {}, `Score deal ${v.deal + 1} from the hands only`), form));
    return;
  }
  if (v.phase === 'counting' || v.phase === 'play') {
    if (v.phase === 'play') playEntry(root, ctx);
    const values = {};
    for (const name of ctx.state.players) {
      const h = v.hands[name];
      if (h.known.length === h.count) values[name] = h.known;
    }
    const form = endingForm(ctx, { title: v.phase === 'counting' ? `Deal ${v.deal} is over: the cards left` : `End deal ${v.deal} now`,
      values, out: v.out || '', after: () => { actor = null; } });
    root.append(v.phase === 'counting' ? form : el('details', { class: 'card', id: 'end-deal', open: ending.seen !== null },
      el('summary', {}, 'End this deal now (cards left)'), form));
  }
}

// -- history: one row per deal, each with an Edit of its hands -------------------------------------
function history(table, ctx) {
  const state = ctx.state;
  const teams = Object.keys(state.totals);
  const rows = state.history || [];
  if (!rows.length) table.append(el('caption', { class: 'muted' }, 'No deal scored yet.'));
  // Edit sits under the hands, not in a column of its own: that column (84 px) made the table 11 px wider than a
  // 360 px phone's history, "Alex 0 (out)" wrapping; the number and team columns are as narrow as Spades' (style.css)
  table.append(el('thead', {}, el('tr', {}, el('th', { class: 'hand' }, '#'), el('th', {}, 'hands'), teams.map((t) => el('th', { class: 'team' }, t)))));
  const body = el('tbody');
  rows.forEach((row, i) => {
    body.append(el('tr', { dataset: { deal: row.deal } }, el('td', { class: 'num hand' }, String(row.deal)),
      el('td', { class: 'bids' }, state.players.map((p) => el('div', { class: 'bid-line' }, `${p} `,
        el('span', {}, `${row.hands[p] === null ? '—' : row.hands[p]}${row.out === p ? ' (out)' : ''}`))),
        ctx.canWrite ? el('button', { type: 'button', class: 'edit-deal', dataset: { deal: i + 1 }, 'aria-label': `Edit deal ${row.deal}`,
          onclick: () => editDeal(table, ctx, i + 1) }, 'Edit') : null),
      teams.map((t) => el('td', { class: 'num team' }, el('strong', {}, String(row.totals[t])), el('div', { class: 'muted' }, `+${row.points[t]}`)))));
  });
  table.append(body);
  if (editing) table.append(el('tfoot', {}, el('tr', {}, el('td', { colspan: 2 + teams.length }, dealEditor(table, ctx)))));
}

async function editDeal(table, ctx, number) {
  const seen = ctx.state.seq;   // the edit is made on the game as it was now (another screen's later edit wins)
  let entries;
  try { ({ entries } = await api('GET', `/api/games/${ctx.state.id}/log`)); } catch (err) { return; }
  const end = entries.find((e) => e.row === number && e.status !== 'undone' && (e.now || e.event).type === 'deal_end');
  const event = end ? end.now || end.event : null;
  // a deal played on the screens ends with no 'out' (the referee saw who went out): the row says (it showed "nobody")
  const row = (ctx.state.history || [])[number - 1];
  const out = (event && event.out) || (row && row.out) || '';
  editing = { number, seq: end ? end.event.seq : null, event, values: { ...((event && event.hands) || {}) }, out, seen };
  clear(table);
  history(table, ctx);
  const foot = table.querySelector('tfoot');
  if (foot) foot.scrollIntoView({ block: 'nearest' });
}

function dealEditor(table, ctx) {
  const close = () => { editing = null; clear(table); history(table, ctx); };
  const box = el('div', { id: 'deal-editor' });
  if (!editing.event) {
    box.append(el('p', { class: 'problem' }, `The end of deal ${editing.number} cannot be found; edit it in the Log.`));
  } else {
    const { seq, number, seen } = editing;
    box.append(handsForm(ctx, { title: `Edit deal ${number}: cards left`, button: 'Save the corrected deal', values: editing.values,
      out: editing.out, keep: editing, onSubmit: async (fixed) => {
        try { await ctx.send({ type: 'correct', target: seq, event: fixed }, box.querySelector('.problem'), { seen }); close(); } catch (err) { /* shown */ }
      } }));
    box.append(el('p', { class: 'problem', role: 'alert', hidden: true }));
  }
  box.append(el('button', { type: 'button', class: 'wide', onclick: close }, 'Cancel'));
  return box;
}

function describe(event) {
  const p = event.player || '';
  switch (event.type) {
    case 'deal': return `${event.dealer || 'the next dealer'} deals, upcard ${pretty(event.upcard)}`;
    case 'upcard': return `wild upcard buried, ${pretty(event.card)} turned`;
    case 'draw': return `${p} draws from the ${event.from}${event.card ? ` (${pretty(event.card)})` : ''}`;
    case 'push': return `${p} pushes`;
    case 'meld': return `${p} melds ${(event.melds || []).map((m) => `${m.kind} ${(m.cards || []).map(pretty).join(' ')}`).join(' + ')}`;
    case 'layoff': return `${p} lays off ${(event.cards || []).map(pretty).join(' ')} on #${event.meld}`;
    case 'swap': return `${p} swaps ${pretty(event.card)} for ${pretty(event.wild)} in #${event.meld}`;
    case 'discard': return `${p} discards ${pretty(event.card)}`;
    case 'deal_end': return `deal over${event.out ? `: ${event.out} went out` : ''}`;
    default: return null;
  }
}

// The Log's edit of a lay-off or swap: it goes by its meld's origin, so one whose meld number was changed and its
// origin left as it was is meant for the meld of the new number (sent with the origin, it was taken and did nothing)
function edited(fields, was) {
  if (!was || !was.origin || !fields.origin || fields.meld === was.meld) return fields;
  if (JSON.stringify(fields.origin) !== JSON.stringify(was.origin)) return fields;
  const rest = { ...fields };
  delete rest.origin;
  return rest;
}

// The Log's Edit and Insert: the dealer and who did what from lists (a wrong dealer meant typing JSON: mend audit,
// session 45); Push's cards carry copies and wilds, typed in the fields.
const editor = pickers({
  deal: [{ key: 'dealer', label: 'Dealer', choices: playerChoices }],
  draw: [PLAYER], push: [PLAYER], meld: [PLAYER], layoff: [PLAYER], swap: [PLAYER], discard: [PLAYER],
});

export default { view, entry, history, describe, edited, editor, turn: (state) => state.view.turn, get keepEntry() { return typing(); } };
