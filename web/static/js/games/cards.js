// Card helpers shared by the game screens: a card as text with its suit symbol, a one-tap grid of
// the 52 cards, a rank-then-suit pad that types cards into a field, and reading typed cards.
import { el } from '../common.js';

export const SUITS = [['S', '♠'], ['H', '♥'], ['D', '♦'], ['C', '♣']];
export const RANKS = ['A', 'K', 'Q', 'J', '10', '9', '8', '7', '6', '5', '4', '3', '2'];
const SYMBOL = Object.fromEntries(SUITS);
const LETTER = Object.fromEntries(SUITS.map(([letter, symbol]) => [symbol, letter]));

// "10H" -> "10♥" (a joker "JK" and anything unknown stay as written).
export function pretty(text) {
  if (typeof text !== 'string') return '—';
  const suit = text.slice(-1);
  return SYMBOL[suit] ? `${text.slice(0, -1)}${SYMBOL[suit]}` : text;
}

// A card as a span coloured by its suit (hearts and diamonds red).
export function cardSpan(text, extra = '') {
  if (typeof text !== 'string') return el('span', { class: `cards ${extra}` }, '—');
  return el('span', { class: `cards suit-${text.slice(-1)} ${extra}`.trim() }, pretty(text));
}

// Typed cards, forgiving: "7h kd, 10♠ jk" -> ["7H", "KD", "10S", "JK"]; "T" is read as 10.
export function readCards(text) {
  return String(text || '')
    .split(/[\s,;]+/)
    .filter(Boolean)
    .map((word) => {
      let card = word.toUpperCase();
      const last = card.slice(-1);
      if (LETTER[last]) card = card.slice(0, -1) + LETTER[last];
      if (/^T[SHDC]$/.test(card)) card = `10${card.slice(1)}`;
      return card;
    });
}

// One button per card (a row of 7 per line, suit by suit); `only`: the cards to offer (a Set),
// `exclude`: cards not to offer. onPick(card) on a tap.
export function cardGrid({ onPick, only = null, exclude = null, id = null, jokers = false }) {
  const box = el('div', { class: 'card-grid', id });
  for (const [suit, symbol] of SUITS) {
    const row = el('div', { class: 'card-row' });
    for (const rank of RANKS) {
      const text = `${rank}${suit}`;
      if ((only && !only.has(text)) || (exclude && exclude.has(text))) continue;
      row.append(el('button', { type: 'button', class: `suit-${suit}`, dataset: { card: text },
        onclick: () => onPick(text) }, `${rank}${symbol}`));
    }
    if (row.children.length) box.append(row);
  }
  if (jokers) {
    box.append(el('div', { class: 'card-row' }, el('button', { type: 'button', dataset: { card: 'JK' },
      onclick: () => onPick('JK') }, 'JK')));
  }
  return box;
}

// A field for several cards with a pad under it: tap a rank, then a suit, and the card is typed.
export function cardField({ label, value = '', placeholder = 'e.g. 7H 7D JK', jokers = false, id = null }) {
  const input = el('input', { type: 'text', value, placeholder, autocomplete: 'off', autocapitalize: 'characters',
    spellcheck: 'false', 'aria-label': label, id });
  let rank = null;
  const ranks = el('div', { class: 'pad-row' });
  const suits = el('div', { class: 'pad-row' });
  const type = (card) => {
    input.value = `${input.value.trim()} ${card}`.trim();
    input.dispatchEvent(new Event('input', { bubbles: true }));
  };
  for (const r of [...RANKS].reverse()) {
    ranks.append(el('button', { type: 'button', class: 'pad', dataset: { rank: r }, onclick: (e) => {
      rank = r;
      for (const b of ranks.children) b.classList.toggle('chosen', b === e.currentTarget);
    } }, r));
  }
  for (const [suit, symbol] of SUITS) {
    suits.append(el('button', { type: 'button', class: `pad suit-${suit}`, dataset: { suit }, onclick: () => {
      if (!rank) return;
      type(`${rank}${suit}`);
      rank = null;
      for (const b of ranks.children) b.classList.remove('chosen');
    } }, symbol));
  }
  if (jokers) suits.append(el('button', { type: 'button', class: 'pad', dataset: { suit: 'JK' }, onclick: () => type('JK') }, 'JK'));
  suits.append(el('button', { type: 'button', class: 'pad', dataset: { act: 'back' }, 'aria-label': 'remove the last card',
    onclick: () => { input.value = input.value.trim().split(/\s+/).slice(0, -1).join(' '); input.dispatchEvent(new Event('input', { bubbles: true })); } }, '⌫'));
  const details = el('details', { class: 'pad-box' }, el('summary', {}, 'card pad'), ranks, suits);
  const node = el('label', { class: 'field' }, label, input, details);
  return { node, input, cards: () => readCards(input.value) };
}

// Is a text field, list or number picker focused? (then a live update leaves the entry form alone)
export function typing() {
  const active = document.activeElement;
  return Boolean(active && ['INPUT', 'TEXTAREA', 'SELECT'].includes(active.tagName));
}
