// Spit: the table (both stocks, the spit piles, who can play what) and manual entry of everything
// the camera can miss: layouts, turning up stock cards, plays (one tap for a legal play, or pick a
// stock card and then a pile: an illegal play is entered the same way and the referee calls it),
// moves into an empty space, Spit!, the slap and a declared round end.
// Indices in events count from 0; everything a person reads counts from 1 ("pile 1", "stock 3").
import { el, plural, showProblem } from '../common.js';
import { cardField, cardGrid, cardSpan, pretty, readCards, typing } from './cards.js';
import { DECK, PLAYER, pickers, places } from './pickers.js';

const PHASES = { layout: 'laying out', start: 'ready: say Spit!', play: 'playing', slap: 'slap!', over: 'game over' };

let picked = null;     // {player, from, card}: a face-up stock card chosen, waiting for where it goes
let turning = null;    // {player, stock}: a face-down stock top being turned up
let spitting = false;  // the Spit! form is open
let layoutDraft = {};  // per player: counts typed but not sent yet
let topsDraft = {};    // per player: the face-up tops typed but not sent yet
let spitDraft = {};    // per player: the spit card typed in the Spit! form, not sent yet

function players(state) { return state.players; }
function sideOf(state, name) { return state.view.players[name]; }

// -- the table ------------------------------------------------------------------------------------
function pilesRow(v, { onPile = null, target = null } = {}) {
  const row = el('div', { class: 'spit-piles', id: onPile ? 'spit-targets' : 'spit-piles' });
  const count = v.single_pile ? 1 : 2;
  for (let i = 0; i < count; i += 1) {
    const pile = v.spit_piles[i];
    const body = [el('span', { class: 'label' }, `pile ${i + 1}`),
      pile ? cardSpan(pile.top, 'big-card') : el('span', { class: 'muted' }, 'empty'),
      el('span', { class: 'muted' }, pile ? `${pile.size} card${pile.size === 1 ? '' : 's'}` : '')];
    if (onPile) {
      row.append(el('button', { type: 'button', class: `spit-pile${target ? ' primary' : ''}`, dataset: { pile: i },
        disabled: !target, onclick: () => onPile(i) }, body));
    } else {
      row.append(el('div', { class: 'spit-pile' }, body));
    }
  }
  return row;
}

function stockRow(state, name, interactive, ctx) {
  const side = sideOf(state, name);
  const row = el('div', { class: 'stock', dataset: { player: name } });
  (side.stock || []).forEach((slot, index) => {
    const size = slot.down + (slot.top ? 1 : 0);
    const chosen = picked && picked.player === name && picked.from === index;
    const label = slot.top ? cardSpan(slot.top) : el('span', { class: 'muted' }, size ? 'down' : '·');
    const under = el('span', { class: 'under' }, size ? `×${size}` : 'empty');
    const attrs = { class: `slot${chosen ? ' chosen' : ''}${slot.top ? ' up' : ''}${size ? '' : ' empty'}`,
      dataset: { player: name, stock: index, card: slot.top || '' } };
    if (!interactive) { row.append(el('div', attrs, label, under)); return; }
    let onclick = null;
    if (slot.top) onclick = () => { picked = chosen ? null : { player: name, from: index, card: slot.top }; turning = null; ctx.redraw(); };
    else if (slot.down) onclick = () => { turning = { player: name, stock: index }; picked = null; ctx.redraw(); };
    else if (picked && picked.player === name) {
      onclick = () => send(ctx, { type: 'move', player: name, from: picked.from, to: index });
      attrs.class += ' target';
    }
    // named by what it shows, after whose pile it is (an aria-label naming the card in words left out the count
    // shown, and speech input could not name the button by its text)
    const whose = el('span', { class: 'sr-only' }, `${name}'s stock ${index + 1}: `);
    row.append(el('button', { type: 'button', ...attrs, disabled: !onclick, onclick }, whose, label, ' ', under));
  });
  return row;
}

function playerBlock(state, name, interactive, ctx) {
  const side = sideOf(state, name);
  const facts = [plural(side.cards, 'card')];
  if (side.spit_cards) facts.push(`${side.spit_cards} spit`);
  if (side.hand && state.view.phase !== 'over') facts.push(`${side.hand} in hand`);
  return el('div', { class: 'spit-player', dataset: { player: name } },
    el('div', { class: 'row' }, el('strong', {}, name), el('span', { class: 'muted' }, facts.join(' · '))),
    side.laid_out ? stockRow(state, name, interactive, ctx) : el('p', { class: 'muted' }, 'not laid out'));
}

function view(root, ctx) {
  const v = ctx.state.view;
  root.append(el('p', { class: 'muted', id: 'spit-phase' }, `Round ${v.round} · ${PHASES[v.phase] || v.phase}`,
    v.single_pile ? ' · one spit pile' : ''));
  for (const text of v.alerts || []) root.append(el('p', { class: 'call-out' }, text));
  const [first, second] = players(ctx.state);
  root.append(playerBlock(ctx.state, second, false, ctx));
  if (v.spit_piles.length) root.append(pilesRow(v));
  root.append(playerBlock(ctx.state, first, false, ctx));
  if (v.fouls && v.fouls.length) {
    root.append(el('ul', { class: 'plain muted', id: 'spit-fouls' }, v.fouls.map((f) =>
      el('li', {}, `#${f.seq} ${f.player}: ${pretty(f.card)} on pile ${f.pile + 1} (${f.code.replace(/_/g, ' ')})`))));
  }
  if (v.points) root.append(el('p', { class: 'muted' }, 'Points: ', Object.entries(v.points).map(([n, p]) => `${n} ${p}`).join(' · ')));
}

// -- entry ----------------------------------------------------------------------------------------
async function send(ctx, body) {
  try {
    await ctx.send(body, document.getElementById('spit-problem'));
    picked = null; turning = null; spitting = false;
    ctx.redraw();
    return true;
  } catch (err) { return false; /* shown */ }
}

// "As far as the cards go": piles dealt row by row (1, 2, 3, 4, 5 with 15 cards or more).
function defaultCounts(cards) {
  const counts = [0, 0, 0, 0, 0];
  let left = Math.max(0, cards);
  for (let row = 0; row < 5 && left; row += 1) {
    for (let pile = row; pile < 5 && left; pile += 1) { counts[pile] += 1; left -= 1; }
  }
  return counts;
}

function layoutForm(ctx, name) {
  const side = sideOf(ctx.state, name);
  const counts = layoutDraft[name] || (layoutDraft[name] = defaultCounts(side.hand));
  const form = el('form', { class: 'card layout-form', dataset: { player: name }, novalidate: true });
  const sum = el('p', { class: 'muted' });
  const showSum = () => {
    const laid = counts.reduce((a, b) => a + b, 0);
    sum.textContent = `${laid} laid out, ${Math.max(0, side.hand - laid)} spit cards (holds ${side.hand})`;
  };
  const selects = el('div', { class: 'row counts' });
  counts.forEach((count, i) => {
    const select = el('select', { 'aria-label': `${name}'s stock pile ${i + 1}`, dataset: { pile: i } });
    for (let n = 0; n <= 5; n += 1) select.append(el('option', { value: String(n) }, String(n)));
    select.value = String(count);
    select.addEventListener('change', () => { counts[i] = Number(select.value); showSum(); });
    selects.append(select);
  });
  const tops = cardField({ label: 'Face-up tops, left to right (optional)', placeholder: 'e.g. 3S 4S 5S 6S 7S',
    value: topsDraft[name] || '' });
  tops.input.addEventListener('input', () => { topsDraft[name] = tops.input.value; });   // kept across redraws
  form.append(el('h2', {}, `${name} lays out`), el('p', { class: 'muted' }, 'Cards in each stock pile, left to right'),
    selects, sum, tops.node,
    el('button', { type: 'submit', class: 'primary wide', dataset: { act: 'layout' } }, `Lay out for ${name}`));
  showSum();
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const body = { type: 'layout', player: name, counts: [...counts] };
    const typed = tops.cards();
    if (typed.length) {
      const filled = counts.map((c) => (c ? typed.shift() || null : null));
      body.tops = filled;
    }
    send(ctx, body).then(() => {
      if (sideOf(ctx.state, name).laid_out) { delete layoutDraft[name]; delete topsDraft[name]; }
    });
  });
  return form;
}

function spitForm(ctx, opening) {
  const v = ctx.state.view;
  const form = el('form', { class: 'card', id: 'spit-form', novalidate: true });
  form.append(el('h2', {}, opening ? 'The opening Spit!' : 'Spit! (nobody can play)'));
  const fields = {};
  for (const name of players(ctx.state)) {
    if (!sideOf(ctx.state, name).spit_cards) continue;
    fields[name] = el('input', { type: 'text', autocomplete: 'off', autocapitalize: 'characters', placeholder: 'e.g. 9D',
      'aria-label': `${name}'s spit card`, dataset: { player: name }, value: spitDraft[name] || '' });
    fields[name].addEventListener('input', () => { spitDraft[name] = fields[name].value; });   // kept across redraws
    form.append(el('label', { class: 'field inline' }, `${name} turns`, fields[name]));
  }
  if (!Object.keys(fields).length) form.append(el('p', { class: 'muted' }, 'Nobody has spit cards left.'));
  form.append(el('button', { type: 'submit', class: 'primary wide', id: 'send-spit' }, 'Spit!'));
  if (!opening) form.append(el('button', { type: 'button', class: 'wide', onclick: () => { spitting = false; ctx.redraw(); } }, 'Cancel'));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const cards = {};
    for (const [name, input] of Object.entries(fields)) {
      const [card] = readCards(input.value);
      if (card) cards[name] = card;
    }
    if (!Object.keys(cards).length) {
      showProblem(document.getElementById('spit-problem'), 'Type the card each player turned, like 9D.');
      return;
    }
    send(ctx, { type: 'spit', cards }).then((sent) => { if (sent) spitDraft = {}; });
  });
  if (v.single_pile) form.append(el('p', { class: 'muted' }, 'One spit pile this round.'));
  return form;
}

// The stocks and the piles come first and keep their place; what varies (the plays that fit, the
// card picker) comes after them, so a live update never moves a button under a finger.
function playing(root, ctx) {
  const state = ctx.state;
  const v = state.view;
  root.append(el('h2', { class: 'small', id: 'spit-hint' }, picked ? `${picked.player}'s ${pretty(picked.card)} goes onto…`
    : 'Tap a stock card, then where it went'));
  const [first, second] = players(state);
  root.append(playerBlock(state, second, true, ctx));
  root.append(pilesRow(v, { target: picked, onPile: (pile) => send(ctx, { type: 'play', player: picked.player,
    card: picked.card, pile, from: picked.from }) }));
  root.append(playerBlock(state, first, true, ctx));
  if (picked) root.append(el('p', { class: 'muted' }, 'Or tap an empty space of the same player to move the card there.'));
  if (turning) {
    const box = el('div', { class: 'card', id: 'reveal-box' },
      el('h2', {}, `${turning.player} turns up stock ${turning.stock + 1}:`));
    const visible = new Set(Object.values(v.players).flatMap((s) => s.stock.map((slot) => slot.top)).concat(v.spit_piles.map((p) => p.top)));
    box.append(cardGrid({ exclude: visible, onPick: (card) => send(ctx, { type: 'reveal', player: turning.player, stock: turning.stock, card }) }),
      el('button', { type: 'button', class: 'wide', onclick: () => { turning = null; ctx.redraw(); } }, 'Cancel'));
    root.append(box);
  }
  if (v.legal_plays.length) {
    const quick = el('div', { class: 'quick-plays', id: 'legal-plays' });
    for (const p of v.legal_plays) {
      quick.append(el('button', { type: 'button', class: 'quick', dataset: { player: p.player, card: p.card, pile: p.pile },
        onclick: () => send(ctx, { type: 'play', player: p.player, card: p.card, pile: p.pile, from: p.from }) },
      `${p.player} `, cardSpan(p.card), ` → pile ${p.pile + 1}`));
    }
    root.append(el('h2', { class: 'small' }, 'Plays that fit (one tap)'), quick);
  }
  if (spitting || v.stalled) root.append(spitForm(ctx, false));
  else root.append(el('button', { type: 'button', class: 'wide', id: 'open-spit', onclick: () => { spitting = true; ctx.redraw(); } }, 'Spit! (turn spit cards)'));
  root.append(roundEndButtons(ctx));
}

function roundEndButtons(ctx) {
  const box = el('details', { class: 'card quick-plays', id: 'round-end' }, el('summary', {}, 'Someone says the round is over…'));
  for (const name of players(ctx.state)) {
    box.append(el('button', { type: 'button', class: 'quick', dataset: { player: name },
      onclick: () => send(ctx, { type: 'round_end', player: name }) }, `${name}: round over`));
  }
  return box;
}

function slapping(root, ctx) {
  const v = ctx.state.view;
  root.append(el('h2', {}, 'Who slapped which pile first?'));
  const grid = el('div', { class: 'slap-grid', id: 'slap-buttons' });
  for (const name of players(ctx.state)) {
    v.spit_piles.forEach((pile, i) => {
      grid.append(el('button', { type: 'button', class: 'slap', dataset: { player: name, pile: i },
        onclick: () => send(ctx, { type: 'slap', player: name, pile: i }) },
      `${name} slaps pile ${i + 1}`, el('span', { class: 'under' }, plural(pile.size, 'card'))));
    });
  }
  root.append(grid);
}

function entry(root, ctx) {
  const state = ctx.state;
  const v = state.view;
  root.append(el('p', { class: 'problem', id: 'spit-problem', role: 'alert', hidden: true }));
  if (state.finished || v.phase === 'over') {
    root.append(el('p', { class: 'card' }, 'The game is over. Undo an event to go on.'));
    return;
  }
  if (picked && !(sideOf(state, picked.player).stock[picked.from] || {}).top) picked = null;
  if (v.phase === 'layout') {
    for (const name of players(state)) if (!sideOf(state, name).laid_out) root.append(layoutForm(ctx, name));
    return;
  }
  if (v.phase === 'start') { root.append(spitForm(ctx, true)); return; }
  if (v.phase === 'slap') { slapping(root, ctx); return; }
  playing(root, ctx);
}

function describe(event) {
  const p = event.player || '';
  switch (event.type) {
    case 'play': return `${p} played ${pretty(event.card)} on pile ${Number(event.pile) + 1}${event.from !== undefined ? ` from stock ${Number(event.from) + 1}` : ''}`;
    case 'reveal': return `${p} turned up ${pretty(event.card)} on stock ${Number(event.stock) + 1}`;
    case 'move': return `${p} moved stock ${Number(event.from) + 1} to the empty space ${Number(event.to) + 1}`;
    case 'layout': return `${p} laid out ${(event.counts || []).join(' ')}`;
    case 'spit': return `Spit! ${Object.entries(event.cards || {}).map(([n, c]) => `${n} ${pretty(c)}`).join(', ')}`;
    case 'slap': return `${p} slapped pile ${Number(event.pile) + 1}`;
    case 'round_end': return `${p || 'someone'} declared the round over`;
    default: return null;
  }
}

// -- history: one row per round, in words ----------------------------------------------------------
const ENDS = { cleared: 'cleared the stock', blocked: 'nobody could play' };

function history(table, ctx) {
  const rows = ctx.state.history || [];
  if (!rows.length) { table.append(el('caption', { class: 'muted' }, 'No round finished yet.')); return; }
  const players = ctx.state.players;
  table.append(el('thead', {}, el('tr', {}, el('th', {}, 'round'), players.map((n) => el('th', {}, n)))));
  const body = el('tbody');
  for (const row of rows) {
    const how = row.first_out ? `${row.first_out} ${ENDS.cleared}` : (ENDS[row.end] || row.end);
    body.append(el('tr', { dataset: { round: row.round } },
      el('td', {}, el('div', {}, String(row.round)), el('div', { class: 'muted' }, how), row.single_pile ? el('div', { class: 'muted' }, 'one spit pile') : null),
      players.map((n) => el('td', {},
        el('div', {}, `held ${plural(row.held[n], 'card')}, took ${row.took[n]}`),
        el('div', {}, el('strong', {}, `now ${row.cards[n]}`)),
        row.points ? el('div', { class: 'muted' }, `${plural(row.points[n], 'point')}`) : null))));
  }
  table.append(body);
}

// The Log's Edit and Insert: who, which card, which pile or stock, from lists (stocks and piles counted from 1, as
// the Log says them: the events count from 0).
const card = { key: 'card', label: 'Card', choices: DECK };
const pile = { key: 'pile', label: 'Spit pile', choices: places('pile', 2) };
const editor = pickers({
  play: [PLAYER, card, pile, { key: 'from', label: 'From', choices: places('stock', 5) }],
  reveal: [PLAYER, { key: 'stock', label: 'Stock', choices: places('stock', 5) }, card],
  move: [PLAYER, { key: 'from', label: 'From', choices: places('stock', 5) }, { key: 'to', label: 'To the empty space', choices: places('space', 5) }],
  slap: [PLAYER, pile],
  round_end: [PLAYER],
});

// Who took which spit pile shows in a banner, and ends the round's "Slap the smaller spit pile!" (it stayed up after
// the slap, and no words on the screen said who took what: spit/snap phones audit, s38); screen readers hear it.
const said = new Set(['round_result', 'late_slap']);
const shown = said;
const ends = { round_result: { code: 'round_over' } };

// While a field of the entry has the focus, a live update redraws only the table (typing is kept).
export default {
  view, entry, describe, history, editor, said, shown, ends,
  turn: () => null,
  get keepEntry() { return typing(); },
};
