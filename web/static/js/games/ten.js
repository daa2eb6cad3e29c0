// Ten: the table (the prompt, the tableau and its running total, the market, the auction, each
// player's tokens, cards and best runs) and manual entry: cards drawn, stopping with a prize, the
// auction of a wild (bids and passes), buys from the market (paid in tokens, or as the player says:
// tokens, bust tokens worth 3, collected cards worth 1), the end of the draw pile, and a score-only
// final count. The turn-by-turn history has one row per turn.
import { draftRefused, draftSeen, el, plural, showProblem, watchDraft } from '../common.js';
import { typing } from './cards.js';
import { pickers, playerChoices } from './pickers.js';

const COLOURS = [['R', 'red'], ['B', 'blue'], ['O', 'orange'], ['G', 'green']];
const NUMBERS = [1, 2, 3, 4, 5, 6, 7, 8, 9];
// every Ten card, as the draw grid shows them: each colour 1-9 and its wild, the rainbow *1-*9 and *#, currency
const ALL_CARDS = [...COLOURS.flatMap(([c]) => [...NUMBERS.map((n) => `${c}${n}`), `${c}#`]),
  ...NUMBERS.map((n) => `*${n}`), '*#', ...[1, 2, 3, 4, 5].map((n) => `$${n}`)];
const OUTCOMES = { numbers: 'took the numbers', currency: 'took the currency', bust_numbers: 'bust (total)',
  bust_currency: 'bust (currency)', none: 'nothing to take' };

let chosen = null;   // the market card chosen to buy
let final = null;    // the score-only final count as typed ({rows: {name: {cards, tokens, bust}}, seen}), until sent

// "R7" -> a span coloured red; "*#" rainbow; "$3" currency.
export function tenCard(text) {
  const head = String(text || '').charAt(0);
  const kind = head === '*' ? 'star' : head === '$' ? 'cur' : head;
  return el('span', { class: `ten ten-${kind}` }, String(text));
}

function tenRow(cards) { return cards.length ? cards.map((c) => [tenCard(c), ' ']) : el('span', { class: 'muted' }, 'none'); }

function problem() { return document.getElementById('ten-problem'); }

// Who acts now: the bidder in an auction, the next buyer in the last buys, else the player whose turn it is.
function actor(v) {
  if (v.phase === 'over') return null;
  if (v.phase === 'auction' && v.auction) return v.auction.next;
  if (v.phase === 'final_buy' && v.last_buys && v.last_buys.length) return v.last_buys[0];
  return v.active;
}

// A colour's run as the count made it: "B 2–6 (5; *# as B4)".
function runText(colour, r) {
  const wilds = (r.wilds || []).map(([card, n]) => `${card} as ${colour}${n}`);
  return `${colour} ${r.run[0]}–${r.run[1]} (${r.points}${wilds.length ? `; ${wilds.join(', ')}` : ''})`;
}

async function send(ctx, body) {
  try {
    await ctx.send(body, problem());
    chosen = null;
    ctx.redraw();
  } catch (err) { /* shown */ }
}

// -- the table ------------------------------------------------------------------------------------
function view(root, ctx) {
  const v = ctx.state.view;
  root.append(el('p', { class: 'big', id: 'ten-prompt' }, v.prompt));
  root.append(el('p', { class: 'muted' }, `${v.deck_left} cards left to draw${v.ending ? ' · the game is ending' : ''} · supply ${v.supply.tokens} tokens`));
  const rt = v.running_total;
  root.append(el('div', { class: 'card', id: 'tableau', hidden: v.phase === 'over' }, el('div', { class: 'row' }, el('strong', {}, `${v.active}'s tableau`),
    el('span', { class: `total${rt.total >= 8 ? ' hot' : ''}` }, `total ${rt.total}`),
    el('span', { class: 'muted' }, `numbers ${rt.numbers} · currency ${rt.currency}`)), el('div', { class: 'ten-cards' }, tenRow(v.tableau))));
  if (v.auction) {
    const a = v.auction;
    root.append(el('p', { class: 'call-out', id: 'ten-auction' }, 'Auction: ', tenCard(a.card),
      a.high_bidder ? ` · best bid ${a.high_bid} by ${a.high_bidder}` : ' · no bid yet', ` · ${a.next} to bid`));
  }
  root.append(el('p', { id: 'ten-market' }, el('strong', {}, 'Market: '), tenRow(v.market)));
  const list = el('div', { class: 'ten-players' });
  for (const name of ctx.state.players) {
    const p = v.players[name];
    const runs = Object.entries(p.runs || {}).map(([colour, r]) => runText(colour, r))
      .concat((p.unused_wilds || []).length ? [`unused: ${p.unused_wilds.join(' ')}`] : []).join(' · ');
    list.append(el('div', { class: `seat${name === actor(v) ? ' turn-now' : ''}`, dataset: { player: name } },
      el('div', { class: 'row' }, el('span', { class: 'name' }, name), el('span', { class: 'muted' }, `place ${p.place} · ${p.points} pts`)),
      el('div', { class: 'stat' }, `${plural(p.tokens, 'token')} · ${p.bust_tokens} bust`),
      el('div', { class: 'ten-cards' }, tenRow(p.cards)),
      runs ? el('div', { class: 'stat' }, runs) : null));
  }
  root.append(list);
}

// -- entry ----------------------------------------------------------------------------------------
function drawGrid(ctx) {
  const box = el('div', { class: 'ten-grid', id: 'ten-draw' });
  // the drawer is named: a correction of an earlier turn then makes a later draw out of turn, said as a foul, where
  // an unnamed draw silently went to whoever the corrected game had in turn (with the cards taken after it)
  const player = ctx.state.view.active;
  const button = (card) => el('button', { type: 'button', dataset: { card }, onclick: () => send(ctx, { type: 'draw', player, card }) }, tenCard(card));
  box.append(...ALL_CARDS.map(button));
  return box;
}

// The optional "how it is paid": empty means currency tokens only; ``held``: the payer's collected cards.
function payForm(held = []) {
  const tokens = el('input', { type: 'number', min: 0, inputmode: 'numeric', id: 'pay-tokens', 'aria-label': 'currency tokens' });
  const bust = el('input', { type: 'number', min: 0, inputmode: 'numeric', id: 'pay-bust', 'aria-label': 'bust tokens' });
  const cards = el('input', { type: 'text', id: 'pay-cards', autocomplete: 'off', autocapitalize: 'characters', placeholder: 'e.g. R1 B2', 'aria-label': 'collected cards' });
  const node = el('details', { class: 'pay-box', id: 'pay-box' }, el('summary', {}, 'Paid another way (bust tokens, cards)…'),
    el('label', { class: 'field inline' }, 'Tokens', tokens), el('label', { class: 'field inline' }, 'Bust tokens (3 each)', bust),
    el('label', { class: 'field' }, 'Collected cards (1 each)', cards),
    el('p', { class: 'muted', id: 'pay-held' }, 'Collected: ', held.length ? tenRow(held) : 'none'));
  const read = () => {
    const pay = {};
    for (const [key, input] of [['tokens', tokens], ['bust_tokens', bust]]) {
      if (input.value === '') continue;
      const n = Number(input.value);
      if (!Number.isInteger(n) || n < 0) throw new Error(`${key.replace('_', ' ')}: a whole number, 0 or more`);
      pay[key] = n;
    }
    const list = cards.value.toUpperCase().split(/[\s,;]+/).filter(Boolean);
    if (list.length) pay.cards = list;
    return Object.keys(pay).length ? pay : null;
  };
  return { node, read };
}

function auctionEntry(root, ctx) {
  const v = ctx.state.view;
  const a = v.auction;
  const bidder = a.next;
  const p = v.players[bidder];
  const means = p.tokens + 3 * p.bust_tokens + p.cards.length;
  const pay = payForm(p.cards);
  const low = a.high_bid === null ? 0 : a.high_bid + 1;   // the first bid may be 0: the wild for nothing
  const bids = el('div', { class: 'row', id: 'bid-buttons' });
  // only bids the bidder can pay (one they cannot was a button that asked how to pay what they do not have)
  if (means < low) bids.append(el('p', { class: 'muted', id: 'cannot-bid' }, `${bidder} cannot pay more than ${means}: only a pass.`));
  for (let n = low; n <= Math.min(means, low + 11); n += 1) {
    bids.append(el('button', { type: 'button', dataset: { bid: n }, onclick: () => {
      let payment;
      try { payment = pay.read(); } catch (err) { showProblem(problem(), err.message); return; }
      if (!payment && n > p.tokens) {
        pay.node.open = true;
        showProblem(problem(), `${bidder} has ${p.tokens} tokens for ${n}: say how the rest is paid (bust tokens, cards).`);
        return;
      }
      send(ctx, { type: 'auction_bid', player: bidder, bid: n, ...(payment ? { pay: payment } : {}) });
    } }, String(n)));
  }
  root.append(el('div', { class: 'card', id: 'auction-entry' }, el('h2', {}, `${bidder} bids for `, tenCard(a.card)),
    el('p', { class: 'muted' }, `${bidder} can pay up to ${means} (${plural(p.tokens, 'token')}, ${p.bust_tokens} bust, ${plural(p.cards.length, 'card')})`),
    bids, means < low ? null : pay.node,
    el('button', { type: 'button', class: 'wide', id: 'auction-pass', onclick: () => send(ctx, { type: 'auction_pass', player: bidder }) }, `${bidder} passes`)));
}

// A price the player's currency tokens alone do not pay: the "paid another way" box opens, saying so, and nothing
// is sent until it says how (sent as it was, it was a too_little_currency foul that bought nothing).
function shortOf(player, p, amount, pay) {
  if (amount <= p.tokens) return { note: null, says: null };
  pay.node.open = true;
  const says = `${player} has ${p.tokens} tokens for ${amount}: say how the rest is paid (bust tokens, cards).`;
  return { note: el('p', { class: 'muted', id: 'pay-short' }, says), says };
}

function price(card) { const n = Number(card.slice(1)); return Number.isInteger(n) ? n : 0; }

function buyEntry(root, ctx) {
  const v = ctx.state.view;
  const buyer = v.phase === 'buy' ? v.active : v.last_buys[0];
  if (chosen && !v.market.includes(chosen)) chosen = null;
  const p = v.players[buyer];
  const pay = payForm(p.cards);
  const market = el('div', { class: 'row', id: 'market-buttons' });
  const means = p.tokens + 3 * p.bust_tokens + p.cards.length;   // bust tokens count 3, collected cards 1
  for (const card of [...new Set(v.market)]) {
    const why = p.cards.includes(card) ? 'held already' : price(card) > means ? `can pay ${means}` : null;
    market.append(el('button', { type: 'button', class: chosen === card ? 'primary' : '', dataset: { card }, disabled: Boolean(why),
      title: why || '', onclick: () => { chosen = chosen === card ? null : card; ctx.redraw(); } },
    tenCard(card), ` · ${price(card)}`, why ? el('span', { class: 'under' }, why) : null));
  }
  const box = el('div', { class: 'card', id: 'buy-entry' }, el('h2', {}, `${buyer} may buy one card`),
    v.market.length ? market : el('p', { class: 'muted' }, 'The market is empty.'));
  if (chosen) {
    const short = shortOf(buyer, p, price(chosen), pay);
    box.append(pay.node, short.note, el('button', { type: 'button', class: 'primary wide', id: 'buy', onclick: () => {
      let payment;
      try { payment = pay.read(); } catch (err) { showProblem(problem(), err.message); return; }
      if (!payment && short.says) { showProblem(problem(), short.says); return; }
      send(ctx, { type: 'buy', player: buyer, card: chosen, ...(payment ? { pay: payment } : {}) });
    } }, `${buyer} buys ${chosen} for ${price(chosen)}`));
  }
  box.append(el('button', { type: 'button', class: 'wide', id: 'pass-buy', onclick: () => send(ctx, { type: 'pass_buy', player: buyer }) }, `${buyer} does not buy`));
  root.append(box);
}

// One fieldset per player (collected cards, tokens, bust tokens), filled in from `kept` ({name: {cards, tokens,
// bust}} as typed), which follows the typing: the Enter tab's final count and the Log's Edit of one.
function collectionFields(players, kept) {
  const rows = {};
  const sets = players.map((name) => {
    const typed = kept[name] || { cards: '', tokens: '', bust: '0' };
    kept[name] = typed;
    const input = (field, attrs) => el('input', { ...attrs, dataset: { player: name, field }, value: typed[field] });
    rows[name] = {
      cards: input('cards', { type: 'text', autocomplete: 'off', autocapitalize: 'characters', placeholder: 'e.g. R1 R2 R3 *# (- for none)', 'aria-label': `${name}'s cards` }),
      tokens: input('tokens', { type: 'number', min: 0, inputmode: 'numeric', placeholder: '0', 'aria-label': `${name}'s tokens` }),
      bust: input('bust', { type: 'number', min: 0, inputmode: 'numeric', 'aria-label': `${name}'s bust tokens` }),
    };
    for (const field of ['cards', 'tokens', 'bust']) rows[name][field].addEventListener('input', () => { typed[field] = rows[name][field].value; });
    return el('fieldset', {}, el('legend', {}, name), el('label', { class: 'field' }, 'Collected cards', rows[name].cards),
      el('div', { class: 'row' }, el('label', { class: 'field inline' }, 'Tokens', rows[name].tokens),
        el('label', { class: 'field inline' }, 'Bust', rows[name].bust)));
  });
  return { rows, sets };
}

// The collections as typed, as a `final` event's players; an Error saying what to type where one is not right.
function readCollections(rows) {
  const players = {};
  for (const [name, r] of Object.entries(rows)) {
    // every field typed, none left as it was: Enter (a phone keyboard's Go) in the first field scored the game
    // with the other players' collections empty
    if (r.cards.value.trim() === '') throw new Error(`${name}: type the collected cards (- if none).`);
    // not 0: tokens break a tie, so the field must be filled in
    if (r.tokens.value.trim() === '') throw new Error(`${name}: type the tokens held (0 if none).`);
    const tokens = Number(r.tokens.value);
    const bust = Number(r.bust.value || 0);
    // digits only, and a number the phone holds exactly: Number() rounds 99999999999999999999 (the server's answer
    // echoed "Alex has 100000000000000000000 tokens": the wording audit, session 40) and reads 1e3 as 1000 and
    // 9.0000000000000001 as 9 (a second review)
    const digits = /^\s*\d+\s*$/.test(r.tokens.value) && /^\s*\d*\s*$/.test(r.bust.value);
    if (!digits || !Number.isSafeInteger(tokens) || !Number.isSafeInteger(bust)) {
      throw new Error(`${name}: tokens and bust tokens are whole numbers, 0 or more.`);
    }
    const cards = r.cards.value.toUpperCase().split(/[\s,;]+/).filter((c) => c && c !== '-');
    players[name] = { cards, tokens, bust_tokens: bust };
  }
  return players;
}

function finalForm(ctx) {
  if (!final) final = { rows: {}, seen: null, stale: false };
  const draft = final;
  const form = el('form', { id: 'ten-final', novalidate: true });
  const { rows, sets } = collectionFields(ctx.state.players, draft.rows);
  form.append(...sets, el('button', { type: 'submit', class: 'primary wide', id: 'send-final' }, 'Score the collections'));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    let players;
    try { players = readCollections(rows); } catch (err) { showProblem(problem(), err.message); return; }
    try {
      await ctx.send({ type: 'final', players }, problem(), { seen: draftSeen(draft, ctx.state.seq) });
      final = null;
      ctx.redraw();
    } catch (err) { draftRefused(draft, err); }
  });
  watchDraft(form, draft, () => ctx.state.seq);
  return el('details', { class: 'card', id: 'final-box', open: draft.seen !== null },
    el('summary', {}, 'Score only: enter each player\'s final collection'), form);
}

function entry(root, ctx) {
  const v = ctx.state.view;
  root.append(el('p', { class: 'problem', id: 'ten-problem', role: 'alert', hidden: true }));
  if (v.phase === 'over') {
    root.append(el('p', { class: 'card' }, 'The game is over. Undo an event to go on.'));
    return;
  }
  root.append(el('p', { class: 'big' }, v.prompt));
  if (v.phase === 'auction' && v.auction) auctionEntry(root, ctx);
  else if (v.phase === 'buy' || v.phase === 'final_buy') buyEntry(root, ctx);
  else {
    const player = v.active;   // named, as a draw is
    const stop = el('div', { class: 'row', id: 'stop-buttons' },
      el('button', { type: 'button', class: 'primary', dataset: { prize: 'numbers' }, onclick: () => send(ctx, { type: 'stop', player, prize: 'numbers' }) }, 'Stop: take the numbers'),
      el('button', { type: 'button', dataset: { prize: 'currency' }, onclick: () => send(ctx, { type: 'stop', player, prize: 'currency' }) }, 'Stop: take the currency'));
    const rt = v.running_total;
    // Stop above the 50 cards to draw: below them it was off a phone's screen on every turn
    root.append(el('div', { class: 'card', id: 'draw-entry' },
      el('p', { class: 'muted' }, 'Tableau: ', tenRow(v.tableau), ` · total ${rt.total} · currency ${rt.currency}`),
      v.tableau.length || v.ending ? stop : null,
      el('h2', {}, v.ending ? `${v.active} takes a prize` : `${v.active} drew:`), v.ending ? null : drawGrid(ctx)));
    if (!v.ending) {
      root.append(el('details', { class: 'card' }, el('summary', {}, 'The draw pile ran out?'),
        el('button', { type: 'button', class: 'wide', id: 'ten-end', onclick: () => send(ctx, { type: 'end' }) },
          'The draw pile is finished (this turn is the last)')));
    }
  }
  if (!ctx.state.counting) root.append(finalForm(ctx));
}

// -- history: one row per turn (and last buy), then the final count ------------------------------
function history(table, ctx) {
  const rows = ctx.state.history || [];
  if (!rows.length) { table.append(el('caption', { class: 'muted' }, 'No turn finished yet.')); return; }
  table.append(el('thead', {}, el('tr', {}, el('th', {}, '#'), el('th', {}, 'player'), el('th', {}, 'drawn · outcome'))));
  const body = el('tbody');
  rows.forEach((row, i) => {
    if (row.count === 'final') {
      body.append(el('tr', { class: 'final' }, el('td', {}, ''), el('td', {}, 'final'),
        el('td', {}, ctx.state.players.map((n) => el('div', {}, `${n}: ${row.points[n]} pts, ${row.tokens[n]} tokens, ${row.cards[n]} cards`)))));
      return;
    }
    if (row.last_buy) {   // after the draw pile ran out: everyone's one last buy
      body.append(el('tr', { class: 'last-buy', dataset: { turn: i + 1 } }, el('td', { class: 'num' }, String(i + 1)), el('td', {}, row.last_buy),
        el('td', {}, 'last buy: ', row.bought ? ['bought ', tenCard(row.bought)] : 'did not buy')));
      return;
    }
    const auctions = (row.auctions || []).map((a) => el('div', { class: 'muted' }, 'auction ', tenCard(a.card), a.winner ? ` to ${a.winner} for ${a.price}` : ' unsold'));
    body.append(el('tr', { dataset: { turn: i + 1 } }, el('td', { class: 'num' }, String(row.turn || i + 1)), el('td', {}, row.player),
      el('td', {}, row.drawn && row.drawn.length ? tenRow(row.drawn) : '', el('div', {}, OUTCOMES[row.outcome] || row.outcome || ''),
        row.bought ? el('div', {}, 'bought ', tenCard(row.bought)) : null, auctions)));
  });
  table.append(body);
}

// -- the Log's Edit (and Insert) of a draw or a stop: the player, the card or the prize chosen from lists --------
// A draw that names no player (the camera's) is the player's whose turn it was: saved so, it stays so.
const drawer = (event) => (event.source === 'vision' ? 'the camera saw it: whose turn it was' : 'not named: whose turn it was');
const lists = pickers({
  draw: [{ key: 'player', label: 'Who drew', choices: playerChoices, unnamed: drawer }, { key: 'card', label: 'The card drawn', choices: ALL_CARDS.map((c) => [c, c]), id: 'ten-edit' }],
  stop: [{ key: 'player', label: 'Who stopped', choices: playerChoices }, { key: 'prize', label: 'The prize taken', choices: [['numbers', 'numbers'], ['currency', 'currency']] }],
});

// The Log's Edit (and Insert) of a score-only final count: the Enter tab's fields, filled in with what was entered,
// written into the JSON fields as they are typed (it was every player's cards and tokens as nested JSON to edit on a
// phone: mend audit, session 45). JSON typed by hand fills them in again; a field not right stops the Save, saying so.
let finalWatch = null;   // the open editor's listeners on the page's edit form
function finalEditor(root, ctx, edit) {
  const fields = document.getElementById('edit-fields');
  const type = document.getElementById('edit-type');
  const { rows, sets } = collectionFields(ctx.state.players, {});
  const box = el('div', { id: 'ten-final-edit', class: 'field' }, el('p', { class: 'muted' }, 'Each player\'s final collection:'), ...sets);
  const typed = () => {
    try { const data = JSON.parse(fields.value || '{}'); return data && typeof data === 'object' && !Array.isArray(data) ? data : null; } catch (err) { return null; }
  };
  const fill = () => {   // the fields' players into the form
    const data = typed();
    if (!data) return;
    const players = data.players && typeof data.players === 'object' ? data.players : {};
    for (const [name, r] of Object.entries(rows)) {
      const p = players[name] && typeof players[name] === 'object' ? players[name] : {};
      r.cards.value = Array.isArray(p.cards) ? (p.cards.length ? p.cards.join(' ') : '-') : '';
      r.tokens.value = p.tokens === undefined ? '' : String(p.tokens);
      r.bust.value = p.bust_tokens === undefined ? '0' : String(p.bust_tokens);
    }
  };
  const write = () => {   // the form into the fields; false (said) when a field is not right
    const problem = document.getElementById('edit-problem');
    const data = typed();
    let players;
    try { players = readCollections(rows); } catch (err) { showProblem(problem, err.message); return false; }
    if (!data) { showProblem(problem, 'The fields are not valid JSON: put them right, then type in the form again.'); return false; }
    showProblem(problem, '');
    fields.value = JSON.stringify({ ...data, players }, null, 1);
    return true;
  };
  const show = () => { box.hidden = !type || type.value !== 'final'; if (!box.hidden) fill(); };
  show();
  if (finalWatch) finalWatch.abort();
  finalWatch = new AbortController();
  if (type) type.addEventListener('change', show, { signal: finalWatch.signal });
  fields.addEventListener('input', () => { if (!box.hidden) fill(); }, { signal: finalWatch.signal });
  box.addEventListener('input', () => {   // quietly while typing: a field half typed is said at the Save
    let players;
    try { players = readCollections(rows); } catch (err) { return; }
    const data = typed();
    if (data) fields.value = JSON.stringify({ ...data, players }, null, 1);
  });
  root.append(box);
  return { sync: () => (box.hidden ? true : write()) };
}

// The Log's editor: the lists of a draw or a stop, the collections of a final count.
function editor(root, ctx, edit) {
  const picked = lists(root, ctx, edit);
  const counted = finalEditor(root, ctx, edit);
  return { sync: () => { picked.sync(); return counted.sync(); } };
}

function describe(event) {
  switch (event.type) {
    case 'draw': return `drew ${event.card}${event.player ? ` (${event.player})` : ''}`;
    case 'stop': return `${event.player ? `${event.player} stops` : 'stop'}: takes the ${event.prize}`;
    case 'auction_bid': return `${event.player} bids ${event.bid}`;
    case 'auction_pass': return `${event.player} passes`;
    case 'buy': return `${event.player} buys ${event.card}`;
    case 'pass_buy': return `${event.player} does not buy`;
    case 'end': return 'the draw pile is finished';
    case 'final': return 'final collections (score only)';
    default: return null;
  }
}

export default { view, entry, history, describe, editor, turn: (state) => actor(state.view),
  get keepEntry() { return typing(); } };
