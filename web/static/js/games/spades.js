// Spades: the table (seats, bids, tricks, the trick on the table, contracts and bags), manual entry
// (a whole hand score-only, or bids then cards one by one), the hand-by-hand history, and editing a
// past hand (written as correction events of the events that made it).
import { api, clear, clearKept, draftOver, draftRefused, draftSeen, el, showProblem, watchDraft } from '../common.js';
import { cardField, pretty, typing } from './cards.js';
import { DECK, PLAYER, pickers, playerChoices } from './pickers.js';

const SUITS = [['S', '♠'], ['H', '♥'], ['D', '♦'], ['C', '♣']];
const RANKS = ['A', 'K', 'Q', 'J', '10', '9', '8', '7', '6', '5', '4', '3', '2'];
const PHASES = { between_hands: 'between hands', bidding: 'bidding', exchange: 'Blind Nil exchange',
  play: 'playing', game_over: 'game over' };

let mode = null;         // 'hand': a whole hand, score only; 'cards': bids then cards one by one (null: as the hand is)
let draft = null;        // the score-only form's values, kept across live redraws
let dealDraft = null;    // the deal form's values (dealer, hands as typed), likewise
let editing = null;      // {row, events, draft}: a past hand being edited
let claimArmed = null;   // a claim asked to be confirmed: `${hand}|${who}|${tricks left}` (a change forgets it)
let entryCtx = null;     // the entry as drawn, for keepEntry: its hand, phase and dealer
let entryKey = '';
const keyOf = (v) => [v.hand, v.phase, v.dealer].join('|');

function card(text) {
  const suit = text.slice(-1);
  const symbol = (SUITS.find(([s]) => s === suit) || [suit, suit])[1];
  return el('span', { class: `cards suit-${suit}` }, `${text.slice(0, -1)}${symbol}`);
}

function bidText(view, name) {
  const bid = view.bids[name];
  if (bid === null || bid === undefined) return '—';
  if (view.blind_nil.includes(name)) return 'Blind Nil';
  return bid === 0 ? 'Nil' : String(bid);
}

function teamOf(players, name) {
  const seat = players.indexOf(name);
  return `${players[seat % 2]} & ${players[(seat % 2) + 2]}`;
}

// -- the table -------------------------------------------------------------------------------
function view(root, ctx) {
  const state = ctx.state;
  const v = state.view;
  const over = v.phase === 'game_over';  // the view then names the hand and dealer that would have come next
  const bits = over ? [`${v.hand - 1} hand${v.hand === 2 ? '' : 's'} played`, PHASES.game_over]
    : [`Hand ${v.hand}`, `dealer ${v.dealer}`, PHASES[v.phase] || v.phase];
  if (v.spades_broken) bits.push('spades broken');
  root.append(el('p', { class: 'muted', id: 'spades-phase' }, bits.join(' · ')));
  const seats = el('div', { class: 'seats', id: 'seats' });
  for (const name of state.players) {
    seats.append(el('div', { class: `seat${v.turn === name && !state.finished ? ' turn-now' : ''}`, dataset: { player: name } },
      el('div', { class: 'name' }, name),
      el('div', { class: 'stat' }, `bid ${bidText(v, name)} · tricks ${v.tricks[name]}`)));
  }
  root.append(seats);
  const teams = el('ul', { class: 'plain', id: 'contracts' });
  for (const [team, contract] of Object.entries(v.contracts)) {
    teams.append(el('li', {}, el('strong', {}, team), ` — contract ${contract} · bags ${v.bags[team]}`));
  }
  root.append(teams);
  if (v.trick && v.trick.length) {
    root.append(el('p', { id: 'trick' }, 'On the table: ',
      v.trick.map((p) => el('span', {}, `${p.player} `, card(p.card), '  '))));
  }
  if (v.last_trick) {
    root.append(el('p', { class: 'muted' }, `Trick ${v.last_trick.number} won by ${v.last_trick.winner}: `,
      v.last_trick.cards.map((c) => [card(c), ' '])));
  }
  for (const w of v.watch || []) {
    root.append(el('p', { class: 'muted' }, `Watching ${w.player}: ${w.why} (trick ${w.trick}, ${w.suit})`));
  }
}

// Whose entry is next: the referee's turn, and in a Blind Nil exchange left out (the hands not given) the dealer's left,
// whose lead the phones offer below the Pass fields. The referee has no turn there (the exchange is anyone's), so a
// card tapped on Charlie's phone ("I am Charlie") went in at once as Beth's lead, where in play it is asked first,
// "this phone is Charlie's" (table.js forAnother): at the table, Charlie's own card laid and tapped before Beth's lead
// was in became her lead (spadesfix, session 49). Under first_lead two_of_clubs nobody is known: the buttons name who.
function turn(state) {
  const v = state.view;
  if (v.phase === 'exchange' && !v.hands && state.options.first_lead !== 'two_of_clubs') {
    return state.players[(state.players.indexOf(v.dealer) + 1) % 4];
  }
  return v.turn;
}

// -- a whole hand, score only ----------------------------------------------------------------
function scored(state) { return (state.history || []).length; }

// (`rows`: the hands scored when it was begun: a refused one is dropped once another screen has scored that hand)
function emptyDraft(state) {
  const players = state.players;
  return { bids: Object.fromEntries(players.map((p) => [p, ''])), tricks: Object.fromEntries(players.map((p) => [p, '0'])),
    blind: [], rows: scored(state) };
}

function numberSelect(value, { nil = false, blank = false } = {}) {
  const select = el('select', {});
  if (blank) select.append(el('option', { value: '' }, '—'));
  for (let n = 0; n <= 13; n += 1) select.append(el('option', { value: String(n) }, n === 0 && nil ? 'Nil' : String(n)));
  select.value = value;
  return select;
}

// The house rule blind_nil_requires_deficit as the referee applies it (scorer/spades_scoring.py blind_nil_allowed): a
// team may bid Blind Nil only when the other team's total is ahead of its own by that much, with the totals before the
// hand (`totals`; `when`: "now", "before hand 2"). null: no such rule. The form's box offered it whatever the totals,
// and the hand was refused (spadesbrisk audit F1, session 48).
function blindNilRule(state, totals, when) {
  const need = Number((state.options || {}).blind_nil_requires_deficit) || 0;
  if (!need) return null;
  const players = state.players;
  const teams = [teamOf(players, players[0]), teamOf(players, players[1])];
  const total = (t) => Number((totals || {})[teams[t]]) || 0;
  const behind = (t) => total(1 - t) - total(t) >= need;
  const may = teams.filter((t, i) => behind(i));
  const score = teams.map((t, i) => `${t} ${total(i)}`).join(', ');
  return {
    allowed: Object.fromEntries(players.map((p, seat) => [p, behind(seat % 2)])),
    note: `Blind Nil needs a team behind by ${need} (house rule): ${may.length ? `only ${may[0]} may bid it` : 'neither team may bid it'} ${when} (${score}).`,
  };
}

// The per-player form (bids, Blind Nil, tricks). onSubmit gets {bids, tricks, blind}. `blindRule`: blindNilRule's.
function handForm(ctx, values, label, onSubmit, { bidsOnly = false, blindRule = null } = {}) {
  const players = ctx.state.players;
  const form = el('form', { class: 'card', id: bidsOnly ? 'bids-form' : 'hand-form', novalidate: true });
  const sum = el('p', { class: 'sum', id: 'tricks-sum' });
  const problem = el('p', { class: 'problem', role: 'alert', hidden: true });
  const total = () => players.reduce((n, p) => n + Number(values.tricks[p] || 0), 0);
  const showSum = () => {
    sum.textContent = `Tricks: ${total()} of 13`;
    sum.classList.toggle('bad', total() !== 13);
  };
  form.append(el('p', { class: 'muted' }, `${teamOf(players, players[0])} against ${teamOf(players, players[1])}`),
    el('div', { class: 'seat-entry muted' }, el('span', {}, 'player'), el('span', {}, bidsOnly ? 'bid' : 'bid · tricks')));
  for (const name of players) {
    const bid = numberSelect(values.bids[name], { nil: true, blank: true });
    bid.dataset.player = name; bid.dataset.field = 'bid';
    bid.setAttribute('aria-label', `${name}'s bid`);
    bid.addEventListener('change', () => { values.bids[name] = bid.value; });
    const tricks = numberSelect(values.tricks[name]);
    tricks.dataset.player = name; tricks.dataset.field = 'tricks';
    tricks.setAttribute('aria-label', `${name}'s tricks`);
    tricks.addEventListener('change', () => { values.tricks[name] = tricks.value; showSum(); });
    // not allowed by the house rule: not offered (one ticked stays, to be unticked)
    const barred = Boolean(blindRule) && !blindRule.allowed[name] && !values.blind.includes(name);
    const blind = el('input', { type: 'checkbox', checked: values.blind.includes(name), dataset: { player: name, field: 'blind' },
      'aria-label': `${name}: Blind Nil`, disabled: barred, title: barred ? blindRule.note : null });
    blind.addEventListener('change', () => {
      values.blind = blind.checked ? [...new Set([...values.blind, name])] : values.blind.filter((p) => p !== name);
      if (blind.checked) { values.bids[name] = '0'; bid.value = '0'; }
    });
    form.append(el('div', { class: 'seat-entry' },
      el('span', { class: 'name' }, name),
      el('span', { class: 'row' }, bid, bidsOnly ? null : tricks),
      el('label', { class: 'flags' }, blind, 'Blind Nil')));
  }
  if (blindRule) form.append(el('p', { class: 'muted', id: bidsOnly ? 'bids-blind-rule' : 'blind-rule' }, blindRule.note));
  if (!bidsOnly) { form.append(sum); showSum(); }
  form.append(problem, el('button', { type: 'submit', class: 'primary wide', id: bidsOnly ? 'save-bids' : 'score-hand' }, label));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    showProblem(problem, '');
    // the lists as shown: Safari's engine fires no 'change' when the bid picked is the one last picked, even where the
    // Blind Nil box has set the list to Nil since; the form showed 3 and the hand was scored as a failed Nil (the
    // WebKit audit, session 44)
    for (const select of form.querySelectorAll('select[data-player][data-field]')) {
      (select.dataset.field === 'bid' ? values.bids : values.tricks)[select.dataset.player] = select.value;
    }
    showSum();
    const missing = players.filter((p) => values.bids[p] === '');
    if (missing.length) { showProblem(problem, `Choose a bid for ${missing.join(', ')}.`); return; }
    if (!bidsOnly && total() !== 13) { showProblem(problem, `The tricks add up to ${total()}, not 13.`); return; }
    const bids = Object.fromEntries(players.map((p) => [p, Number(values.bids[p])]));
    const tricks = Object.fromEntries(players.map((p) => [p, Number(values.tricks[p])]));
    const blind = players.filter((p) => values.blind.includes(p) && bids[p] === 0);
    try { await onSubmit({ bids, tricks, blind }); } catch (err) { showProblem(problem, err.message); }
  });
  return form;
}

// -- bids, then cards one by one --------------------------------------------------------------
function cardsEntry(root, ctx) {
  const v = ctx.state.view;
  const who = v.turn;
  const box = el('div', { class: 'card', id: 'cards-entry' });
  // a refusal is said at the top of this box, by the buttons tapped (below them, it was off the screen)
  const problem = el('p', { class: 'problem', id: 'spades-problem', role: 'alert', hidden: true });
  box.append(problem);
  const send = (body) => ctx.send(body, problem).catch(() => {});
  if (ctx.state.finished) { box.append(el('p', {}, 'The game is over.')); root.append(box); return; }
  const dealt = v.phase === 'bidding' && Object.values(v.bids).some((b) => b !== null);
  if (!dealt && (v.phase === 'between_hands' || v.phase === 'bidding')) root.append(dealBox(ctx));  // a re-deal while no bid
  if ((v.phase === 'bidding' || v.phase === 'between_hands') && who) {
    box.append(el('p', { class: 'big' }, `${who} bids:`));
    const buttons = el('div', { class: 'row', id: 'bid-buttons' });
    for (let n = 0; n <= 13; n += 1) {
      buttons.append(el('button', { type: 'button', dataset: { bid: n },
        onclick: () => send({ type: 'bid', player: who, bid: n }) }, n === 0 ? 'Nil' : String(n)));
    }
    // offered as the house rule allows, as the form's box (it was offered whatever the totals: refused, "bid again")
    const rule = blindNilRule(ctx.state, ctx.state.totals, 'now');
    const barred = Boolean(rule) && !rule.allowed[who];
    buttons.append(el('button', { type: 'button', dataset: { bid: 'blind' }, disabled: barred, title: barred ? rule.note : null,
      onclick: () => send({ type: 'bid', player: who, bid: 0, blind: true }) }, 'Blind Nil'));
    box.append(buttons);
    if (rule) box.append(el('p', { class: 'muted', id: 'bid-blind-rule' }, rule.note));
  } else if (v.phase === 'exchange') {
    // as many cards as the game's blind_nil_exchange (the hint showed three whatever it was: an options audit, s39)
    const count = Number(ctx.state.options.blind_nil_exchange) || 3;
    const example = ['2C', '5H', '9D', 'QS'].slice(0, count).join(' ');
    for (const name of v.exchange_pending) {
      const input = el('input', { placeholder: `e.g. ${example}`, autocomplete: 'off', 'aria-label': `${name}'s ${count} cards` });
      box.append(el('div', { class: 'field' }, `${name} passes ${count} cards:`, input,
        el('button', { type: 'button', onclick: () => {
          // a form kept while typing: this one may have come in from another phone meanwhile (a second review, s39)
          if (!(ctx.state.view.exchange_pending || []).includes(name)) { showProblem(problem, `${name}'s exchange is already in.`); return; }
          send({ type: 'exchange', player: name, cards: input.value.trim().toUpperCase().split(/[\s,]+/).filter(Boolean) });
        } }, 'Pass')));
    }
    // The hands not typed (most groups): the cards pass face down, and the referee needs them not (a lead without
    // them is taken, "exchange not recorded": scorer/spades_play.py), so the first lead is offered too; the Pass
    // fields were the only way on, asking for secret cards (spadesbrisk audit F2, session 48). The hands known, the
    // exchange is asked for: the referee then checks every card against them.
    if (!v.hands) {
      box.append(el('p', { class: 'muted', id: 'exchange-optional' }, 'The cards passed face down can be left out: '
        + 'tap the first lead below and play goes on without them.'));
      if (ctx.state.options.first_lead === 'two_of_clubs') twoOfClubs(box, ctx, send);
      else playGrid(box, v, turn(ctx.state), send);   // the dealer's left leads
    }
  } else if (v.phase === 'play' && who) {
    playGrid(box, v, who, send);
    // A claim ends the hand: it asks first (it came up under a finger about to tap a card, and scored the hand at
    // once: spades phones audit, s38), in place, no redraw (that scrolled the page under a second tap onto a card),
    // with the question where the button was and the answers below it (a double tap landed on "Yes": a review).
    const left = 13 - Object.values(v.tricks || {}).reduce((a, b) => a + b, 0);   // (the tricks complete this hand)
    const key = `${v.hand}|${who}|${left}`;
    if (claimArmed !== key) claimArmed = null;
    const ask = el('button', { type: 'button', class: 'wide', id: 'claim' }, `${who} claims the rest…`);
    const confirm = el('div', { id: 'claim-confirm' },
      el('p', { class: 'claim-question' }, `${who} takes ${left === 1 ? 'the last trick' : `the ${left} tricks left`}, ending the hand?`),
      el('div', { class: 'row' },
        el('button', { type: 'button', class: 'primary', id: 'claim-yes',
          onclick: () => { claimArmed = null; send({ type: 'claim', player: who }); } }, `Yes: ${who} claims`),
        el('button', { type: 'button', id: 'claim-no', onclick: () => { claimArmed = null; confirm.replaceWith(ask); ask.focus(); } }, 'Cancel')));
    ask.addEventListener('click', () => { claimArmed = key; ask.replaceWith(confirm); });
    box.append(claimArmed ? confirm : ask);
  } else if (v.phase === 'play' && !(v.trick || []).length && ctx.state.options.first_lead === 'two_of_clubs') {
    twoOfClubs(box, ctx, send);
  } else {
    box.append(el('p', { class: 'muted' }, 'Waiting for the next hand.'));
  }
  root.append(box);
}

// Whose card is next, the trick so far, and a button per card `who` may play (the legal ones when the hands are known).
function playGrid(box, v, who, send) {
  box.append(el('p', { class: 'big' }, `${who} plays:`));
  const taken = Object.values(v.tricks || {}).reduce((a, b) => a + b, 0);   // tricks complete this hand
  // the cards of the trick so far, by the buttons: the last entry could be checked only on the Table tab
  const trick = v.trick || [];
  box.append(el('p', { id: 'trick-so-far', class: 'muted' }, trick.length
    ? ['On the table: ', trick.map((p, i) => [i ? ', ' : '', `${p.player} `, card(p.card)])]
    : `${who} leads trick ${taken + 1}.`));
  const legal = v.legal ? new Set(v.legal) : null;
  const onTable = new Set(trick.map((p) => p.card));
  for (const [suit, symbol] of SUITS) {
    const row = el('div', { class: 'card-row' });
    for (const rank of RANKS) {
      const text = `${rank}${suit}`;
      if ((legal && !legal.has(text)) || onTable.has(text)) continue;
      row.append(el('button', { type: 'button', class: `suit-${suit}`, dataset: { card: text },
        onclick: () => send({ type: 'play', player: who, card: text }) }, `${rank}${symbol}`));
    }
    if (row.children.length) box.append(row);
  }
}

// Hands unknown and first_lead two_of_clubs: whoever holds the 2♣ leads it (the screen said "Waiting for the next
// hand" with no way on: an options audit, s39).
function twoOfClubs(box, ctx, send) {
  box.append(el('p', { class: 'big' }, 'Who holds the 2♣? They lead it:'));
  const buttons = el('div', { class: 'row', id: 'two-of-clubs' });
  for (const name of ctx.state.players) {
    buttons.append(el('button', { type: 'button', dataset: { player: name },
      onclick: () => send({ type: 'play', player: name, card: '2C' }) }, name));
  }
  box.append(buttons);
}

// A screen opened (or reloaded) in the middle of a hand played card by card goes on card by card.
function startingMode(v) {
  const bidding = v.phase === 'bidding' && Object.values(v.bids).some((b) => b !== null);
  return bidding || v.phase === 'exchange' || v.phase === 'play' || v.hands ? 'cards' : 'hand';
}

// The deal: who deals, and (optionally) the four hands, so that the referee checks every card played.
function dealBox(ctx) {
  const v = ctx.state.view;
  const players = ctx.state.players;
  // a draft is for one hand's deal: drawn again while the hand just dealt was bid (a re-deal allowed), it kept that
  // hand's dealer into the next deal, which named him again (wrong_dealer, the rotation broken: spades phones audit)
  const key = `${v.hand}|${v.dealer}`;
  if (!dealDraft || dealDraft.key !== key) dealDraft = { key, dealer: v.dealer, hands: Object.fromEntries(players.map((p) => [p, ''])) };
  const dealer = el('select', { id: 'deal-dealer', 'aria-label': 'dealer' }, players.map((n) => el('option', { value: n }, n)));
  dealer.value = dealDraft.dealer;
  dealer.addEventListener('change', () => { dealDraft.dealer = dealer.value; });
  const form = el('form', { id: 'deal-form', novalidate: true }, el('label', { class: 'field inline' }, 'Dealer', dealer),
    el('p', { class: 'muted' }, 'The hands are optional: with all four the referee knows who holds what and offers only legal cards.'));
  const fields = {};
  for (const name of players) {
    fields[name] = cardField({ label: `${name}'s 13 cards`, value: dealDraft.hands[name], placeholder: 'e.g. AS KS 10H 2C …' });
    fields[name].input.dataset.player = name;
    fields[name].input.addEventListener('input', () => { dealDraft.hands[name] = fields[name].input.value; });
    form.append(fields[name].node);
  }
  const problem = el('p', { class: 'problem', role: 'alert', hidden: true });
  form.append(problem, el('button', { type: 'submit', class: 'primary wide', id: 'send-deal' }, `Deal hand ${v.hand}`));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const hands = Object.fromEntries(players.map((n) => [n, fields[n].cards()]));
    const missing = players.filter((n) => !hands[n].length);
    if (missing.length && missing.length < players.length) {
      showProblem(problem, `Give all four hands, or none: ${missing.join(', ')} has no cards typed.`);
      return;
    }
    try {
      await ctx.send({ type: 'deal', dealer: dealer.value, ...(missing.length ? {} : { hands }) }, problem);
      dealDraft = null;
      ctx.redraw();
    } catch (err) { /* shown */ }
  });
  return el('details', { class: 'card', id: 'deal-box' }, el('summary', {}, `Deal hand ${v.hand}: dealer ${v.dealer}, hands…`), form);
}

// The line under the whole hand's heading that the form was typed for a hand another screen has since scored, or null.
function handOverText(ctx) {
  const v = ctx.state.view;
  if (mode !== 'hand' || ctx.state.finished || (v.phase !== 'between_hands' && v.phase !== 'bidding')) return null;
  if (draft.seen == null || draft.refused || draft.rows >= scored(ctx.state)) return null;
  return `Hand ${draft.rows + 1} was scored on another screen meanwhile (see the History): what is typed below was `
    + `typed for it, not for hand ${v.hand}.`;
}

function entry(root, ctx) {
  entryCtx = ctx; entryKey = keyOf(ctx.state.view);
  if (!draft || draftOver(draft, scored(ctx.state))) draft = emptyDraft(ctx.state);   // (common.js draftOver)
  if (!mode) mode = startingMode(ctx.state.view);
  // #hand-over is an alert: drawn anew at every redraw (another phone's entry, this one's), a screen reader said it
  // again each time (spadesfix, session 49). Saying the same, the node stays in the page (clearKept), the rest drawn
  // around it; what it says changed, or said no more, it goes.
  const over = handOverText(ctx);
  let line = root.querySelector(':scope > #hand-over');
  if (line && line.textContent !== over) { line.remove(); line = null; }
  const put = (node) => (line ? root.insertBefore(node, line) : root.append(node));
  const switcher = el('div', { class: 'row', id: 'entry-mode' },
    el('button', { type: 'button', class: mode === 'hand' ? 'primary' : '', dataset: { mode: 'hand' },
      onclick: () => { mode = 'hand'; clearKept(root); entry(root, ctx); } }, 'Whole hand'),
    el('button', { type: 'button', class: mode === 'cards' ? 'primary' : '', dataset: { mode: 'cards' },
      onclick: () => { mode = 'cards'; clearKept(root); entry(root, ctx); } }, 'Bids & cards'));
  put(switcher);
  if (mode === 'cards') { cardsEntry(root, ctx); return; }
  const v = ctx.state.view;
  if (ctx.state.finished) { root.append(el('p', { class: 'card' }, 'The game is over. Undo or edit a hand to go on.')); return; }
  if (v.phase !== 'between_hands' && v.phase !== 'bidding') {
    root.append(el('p', { class: 'card muted' }, `Hand ${v.hand} is being played card by card: use "Bids & cards".`));
    return;
  }
  put(el('h2', {}, `Hand ${v.hand} (dealer ${v.dealer})`));
  // A form typed for a hand another screen has since scored keeps what was typed (sent, it is refused as entered
  // meanwhile, or answered "Already entered": common.js watchDraft), and says so under the heading: it showed the
  // scored hand's bids and tricks under the next hand's, as if for it (tenpace audit F2, session 48).
  if (over && !line) root.append(el('p', { class: 'problem', id: 'hand-over', role: 'alert', dataset: { kept: '1' } }, over));
  const form = handForm(ctx, draft, 'Score the hand', async (hand) => {
    const started = draft;
    let answer;
    try {
      answer = await ctx.send({ type: 'hand', ...hand }, ctx.problem(), { seen: draftSeen(started, ctx.state.seq) });
    } catch (err) { draftRefused(started, err); throw err; }
    const why = notScored(answer);
    if (why !== null) {
      // taken, and ruled a foul that scored nothing (a Blind Nil the house rule does not allow): what was typed stays,
      // to be put right (the form was emptied, all 12 values to type again: spadesbrisk audit F1, session 48); refused
      // as a 400 is, it is dropped once another screen scores the hand (draftOver)
      started.refused = true;
      started.said = why;
      if (draft === started) { clearKept(root); entry(root, ctx); }
      return;
    }
    draft = emptyDraft(ctx.state);
    clearKept(root); entry(root, ctx);
  }, { blindRule: blindNilRule(ctx.state, ctx.state.totals, 'now') });
  if (draft.refused && draft.said) showProblem(form.querySelector('.problem'), draft.said);
  watchDraft(form, draft, () => ctx.state.seq, () => scored(ctx.state));
  root.append(form);
}

// What an answer to a whole hand says when the hand was not scored (a foul or error ruling: the referee left the game as
// it was), else null. A duplicate's: whether that entry counted.
function notScored(answer) {
  if (!answer) return null;
  if (answer.duplicate) return answer.counts === false ? '' : null;   // (send said "Already entered … changed nothing")
  const fault = (answer.rulings || []).find((r) => r.severity === 'foul' || r.severity === 'error');
  return fault ? fault.message : null;
}

// -- history, and editing a past hand ---------------------------------------------------------
function history(table, ctx) {
  const state = ctx.state;
  const teams = Object.keys(state.totals);
  const rows = state.history || [];
  if (!rows.length) { table.append(el('caption', { class: 'muted' }, 'No hand finished yet.')); }
  // At 360 px a column of Edit buttons and the team columns' share of the width left the bids column a few letters
  // wide, each player's line wrapped ("Beth 3 ·" over "3"), and long names pushed the second team and Edit out of
  // sight (notes of sessions 32 and 38): the team columns take what their numbers and words need, the bids column the
  // rest, a line's numbers never split, and Edit sits in the breakdown row under the hand's.
  table.append(el('thead', {}, el('tr', {}, el('th', { class: 'hand' }, '#'), el('th', {}, 'bids · tricks'),
    teams.map((t) => el('th', { class: 'team' }, t)))));
  const body = el('tbody');
  rows.forEach((row, i) => {
    const lines = state.players.map((p) => {
      const bid = row.blind_nil.includes(p) ? 'BN' : row.bids[p] === 0 ? 'Nil' : row.bids[p];
      return el('div', { class: 'bid-line' }, `${p} `, el('span', {}, `${bid} · ${row.tricks[p]}`));
    });
    body.append(el('tr', { dataset: { hand: row.hand } },
      el('td', { class: 'num hand' }, String(row.hand)),
      el('td', { class: 'bids' }, lines, el('div', { class: 'muted' }, `dealer ${row.dealer}${row.entry === 'cards' ? ' · played' : ''}`)),
      teams.map((t) => el('td', { class: 'num team' }, el('strong', {}, String(row.teams[t].total)),
        el('div', { class: 'muted' }, signed(row.teams[t].points))))));
    body.append(el('tr', { class: 'breakdown', dataset: { hand: row.hand } },
      el('td', { colspan: 2 + teams.length },
        ctx.canWrite ? el('button', { type: 'button', class: 'edit-hand', dataset: { hand: i + 1 },
          'aria-label': `Edit hand ${row.hand}`, onclick: () => editHand(table, ctx, i + 1) }, 'Edit') : null,
        teams.map((t) => breakdown(t, row.teams[t], row, state.players)))));
  });
  table.append(body);
  if (editing) table.append(el('tfoot', {}, el('tr', {}, el('td', { colspan: 2 + teams.length }, editorFor(table, ctx)))));
}

// How each team's hand scored, in a row under the hand's: only the total and "+points · bags N" were shown, so a
// failed Nil or a bag penalty showed only as a smaller number (spades phones audit, s38).
const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : '0');
// The tricks toward the contract are `counted` (a failed Nil's count only under the house rule help_contract: "took
// 5 (set)" on a bid of 4 read as made: a review); each Nil is named, Blind or not, made or failed.
function breakdown(team, s, row, players) {
  const parts = s.contract || s.contract_points ? [`bid ${s.contract}, took ${s.counted === undefined ? s.tricks : s.counted}${s.made ? '' : ' (set)'} ${signed(s.contract_points)}`] : [];
  const nils = players.filter((p) => teamOf(players, p) === team && row.bids[p] === 0)
    .map((p) => `${p}'s ${row.blind_nil.includes(p) ? 'Blind Nil' : 'Nil'} ${row.tricks[p] === 0 ? 'made' : `failed (${row.tricks[p]})`}`);
  if (nils.length) parts.push(`${nils.join(', ')} ${signed(s.nil_points)}`);
  if (s.bags) parts.push(`${s.bags} ${s.bags === 1 ? 'bag' : 'bags'} ${signed(s.bags)}`);
  if (s.bag_penalty) parts.push(`bag penalty ${signed(s.bag_penalty)}`);
  return el('div', { dataset: { team } }, el('strong', {}, `${team}: `), `${parts.join(' · ')} = ${signed(s.points)}; bags held ${s.bag_count}`);
}

// The events that made history row `number`: those after the previous completed row, up to this one.
function eventsOfRow(entries, number) {
  const counting = entries.filter((e) => e.status !== 'meta' && e.status !== 'undone' && e.status !== 'refused');
  const end = counting.findIndex((e) => e.row === number);
  if (end < 0) return [];
  let start = end;
  while (start > 0 && !counting[start - 1].row) start -= 1;
  return counting.slice(start, end + 1).map((e) => ({ seq: e.event.seq, event: e.now || e.event }));
}

async function editHand(table, ctx, number) {
  const seen = ctx.state.seq;   // the edit is made on the game as it was now (another screen's later edit wins)
  const { entries } = await api('GET', `/api/games/${ctx.state.id}/log`);
  const events = eventsOfRow(entries, number);
  const row = ctx.state.history[number - 1];
  const values = {
    bids: Object.fromEntries(ctx.state.players.map((p) => [p, String(row.bids[p])])),
    tricks: Object.fromEntries(ctx.state.players.map((p) => [p, String(row.tricks[p])])),
    blind: [...row.blind_nil],
  };
  editing = { number, events, values, entry: row.entry, seen };
  clear(table); history(table, ctx);
  const foot = table.querySelector('tfoot');
  if (foot) foot.scrollIntoView({ block: 'nearest' });
}

function editorFor(table, ctx) {
  const { number, events, values, seen } = editing;
  const close = () => { editing = null; clear(table); history(table, ctx); };
  const box = el('div', { id: 'hand-editor' });
  box.append(el('h2', {}, `Edit hand ${number}`));
  const handEvent = events.find((e) => e.event.type === 'hand');
  const bidders = new Set();   // a player's second bid is ignored by the referee: only the first is corrected
  const bidEvents = events.filter((e) => e.event.type === 'bid' && !bidders.has(e.event.player) && bidders.add(e.event.player));
  // the house rule on Blind Nil, with the totals before this hand (a correction with a Blind Nil it does not allow was
  // taken, and the hand unscored: the next hand became this one)
  const before = number > 1 ? Object.fromEntries(Object.entries(ctx.state.history[number - 2].teams).map(([t, s]) => [t, s.total])) : {};
  const blindRule = blindNilRule(ctx.state, before, `before hand ${number}`);
  let form;
  const said = () => form.querySelector('.problem');   // (the editor's own line, not the Enter tab's)
  if (handEvent) {
    form = handForm(ctx, values, 'Save the corrected hand', async (hand) => {
      // a refusal is said in the editor alone (it went to the Enter tab's line too, and stayed there under the next
      // hand's form after Cancel: "this edit would make event 1 … Nothing was changed"; a review, session 48)
      await ctx.send({ type: 'correct', target: handEvent.seq, event: { type: 'hand', ...hand } }, said(), { seen });
      close();
    }, { blindRule });
  } else if (bidEvents.length) {
    box.append(el('p', { class: 'muted' }, 'This hand was played card by card: its tricks come from the plays (edit those in the Log). The bids can be corrected here.'));
    form = handForm(ctx, values, 'Save the corrected bids', async (hand) => {
      editing.problem = null;
      const saved = [];   // the first correction is the tap's; the rest follow it
      for (const { seq, event } of bidEvents) {
        const bid = hand.bids[event.player];
        const blind = hand.blind.includes(event.player);
        if (bid !== event.bid || blind !== Boolean(event.blind)) {
          const fixed = { type: 'bid', player: event.player, bid };
          if (blind) fixed.blind = true;
          try {
            await ctx.send({ type: 'correct', target: seq, event: fixed }, said(), { follow: saved.length > 0, seen });
          } catch (err) {
            // a save before it redrew the editor: the refusal went to the form it replaced, and the editor stayed
            // open with no word (a JS pinning audit, s39); it is kept for the editor drawn now and after
            let text = saved.length ? `${saved.join(' and ')}'s bid saved; ${event.player}'s not: ${err.message}` : err.message;
            if (err.status === 409) {   // made on an older game: the editor opens again on the hand as it is now (its
              await editHand(table, ctx, number);   // old `seen` refused every Save after: a second review)
              text += ' The editor now shows the hand as it is.';
            }
            editing.problem = text;
            clear(table); history(table, ctx);
            return;
          }
          saved.push(event.player);
        }
      }
      close();
    }, { bidsOnly: true, blindRule });
    if (editing.problem) showProblem(form.querySelector('.problem'), editing.problem);
  } else {
    form = el('p', { class: 'problem' }, 'The events of this hand cannot be found; edit them in the Log.');
  }
  box.append(form, el('button', { type: 'button', id: 'cancel-edit', onclick: close }, 'Cancel'));
  return box;
}

function describe(event) {
  if (event.type === 'hand') {
    const names = Object.keys(event.bids || {});
    return `hand · ${names.map((p) => `${p} ${(event.blind || []).includes(p) ? 'BN' : event.bids[p] === 0 ? 'Nil' : event.bids[p]}/${(event.tricks || {})[p]}`).join(', ')}`;
  }
  if (event.type === 'bid') return `${event.player} bids ${event.blind ? 'Blind Nil' : event.bid === 0 ? 'Nil' : event.bid}`;
  if (event.type === 'play') return `${event.player} plays ${pretty(event.card)}`;
  if (event.type === 'deal') return `${event.dealer || 'the dealer'} deals${event.hands ? ' (hands given)' : ''}`;
  return null;
}

// The Log's Edit and Insert: the dealer, the bidder and bid, the player and card from lists. A wrong dealer could only be
// put right by typing "dealer" among the deal's 52 cards in its JSON (mend audit, session 45).
const editor = pickers({
  deal: [{ key: 'dealer', label: 'Dealer', choices: playerChoices }],
  bid: [PLAYER, { key: 'bid', label: 'Bid', choices: Array.from({ length: 14 }, (_, n) => [n, n === 0 ? 'Nil (0)' : String(n)]) },
    // a Blind Nil is bid 0 and blind: the bid list alone showed it as "Nil (0)", and a 3 chosen was refused (a review)
    { key: 'blind', label: 'Blind Nil', choices: [[false, 'no'], [true, 'yes: a Blind Nil (bid 0)']] }],
  play: [PLAYER, { key: 'card', label: 'Card', choices: DECK }],
  claim: [PLAYER],
});

// typing in a field (the Blind Nil exchange, the deal's hands): another phone's event redraws only the table (a review,
// s39), unless it changed the hand, phase or dealer (a kept deal form dealt the next hand with the last hand's dealer:
// a second review); the deal's draft keeps what was typed
export default { view, entry, history, describe, turn, editor,
  get keepEntry() { return typing() && entryCtx !== null && keyOf(entryCtx.state.view) === entryKey; } };
