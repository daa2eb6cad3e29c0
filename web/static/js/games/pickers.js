// The Log's Edit and Insert with the fields chosen from lists (the card, the player, the pile) instead of typed as
// JSON, which at the table meant translating the Log's "stock 5" into "from": 4 on a phone's keyboard (spit/snap
// phones audit, s38). Each choice writes its field into the JSON fields, which stay for everything else; an event
// type's lists show while that type is chosen.
import { el, showProblem } from '../common.js';
import { RANKS, SUITS, pretty } from './cards.js';

// The 52 cards as [value, text] choices, suit by suit.
export const DECK = SUITS.flatMap(([suit]) => [...RANKS].reverse().map((rank) => [`${rank}${suit}`, pretty(`${rank}${suit}`)]));

// Places counted from 0 in the events and from 1 on the screens: [0, 'stock 1'], [1, 'stock 2'] ...
export function places(word, count) {
  return Array.from({ length: count }, (_, i) => [i, `${word} ${i + 1}`]);
}

// The JSON fields as typed, as an object (null when they are not one).
function typed(fields) {
  let data;
  try { data = JSON.parse(fields.value || '{}'); } catch (err) { return null; }
  return data && typeof data === 'object' && !Array.isArray(data) ? data : null;
}

export function playerChoices(ctx) { return ctx.state.players.map((name) => [name, name]); }

// The player list, as most events name who did it.
export const PLAYER = { key: 'player', label: 'Player', choices: playerChoices };

// byType: { eventType: [{ key, label, choices: [[value, text]] or (ctx) => choices, id?, unnamed? }] }. Returns a
// screen's `editor` hook (table.js openEditor). `unnamed(event)`: what the list says for an edited event without the
// field, where that is not a choice still to make (a Ten camera draw names no player: it is the turn's player's, and
// "choose…" suggested one must be picked; mend audit, session 45).
export function pickers(byType) {
  let watch = null;   // the edit form's type list and fields are the page's: their listeners are the open editor's
  return function editor(root, ctx, edit) {
    const fields = document.getElementById('edit-fields');
    const type = document.getElementById('edit-type');
    const problem = document.getElementById('edit-problem');
    const start = edit.event || {};
    const boxes = [];
    for (const [kind, list] of Object.entries(byType)) {
      for (const { key, label, choices, id, unnamed } of list) {
        const options = typeof choices === 'function' ? choices(ctx) : choices;
        const current = start.type === kind ? start[key] : undefined;
        const known = options.some(([value]) => value === current);
        const none = edit.event && current === undefined && unnamed ? unnamed(edit.event) : null;
        const select = el('select', { id: id || `pick-${kind}-${key}` },
          el('option', { value: '', selected: !known, disabled: true }, none || (known || current === undefined ? 'choose…' : String(current))),
          options.map(([value, text]) => el('option', { value: String(value), selected: value === current }, text)));
        let shownValue = select.value;
        const chosen = () => {   // the fields as typed, with this one changed
          const data = typed(fields);
          if (!data) {   // not replaced by {}: that lost the player
            select.value = shownValue;   // the list keeps saying what the fields say (a review)
            showProblem(problem, 'The fields are not valid JSON: put them right, then choose again.');
            return;
          }
          showProblem(problem, '');
          const [value] = options.find(([v]) => String(v) === select.value);
          shownValue = select.value;
          fields.value = JSON.stringify({ ...data, [key]: value }, null, 1);
        };
        select.addEventListener('change', chosen);
        // another type chosen, or the fields typed: the lists show what the fields say (they showed "choose…", or a
        // value the fields no longer had: the reviews)
        const follow = () => {
          const data = typed(fields);
          if (!data) return;
          const found = options.find(([v]) => v === data[key]);
          select.value = found ? String(found[0]) : '';   // '' : "choose…", or the value the list does not have
          shownValue = select.value;
        };
        // Safari's engine fires no 'change' when the choice picked is the one last picked, even where a script has
        // moved the list since (follow, or the revert above): the list showed Beth and Save sent Alex (the WebKit
        // audit, session 44). Before a save, a list that shows another choice than the fields say is taken.
        const sync = () => { if (select.value && select.value !== shownValue) chosen(); };
        boxes.push(Object.assign(el('label', { class: 'field', dataset: { type: kind } }, label, select), { follow, sync }));
      }
    }
    // for the chosen type only: another type chosen hides them (Ten's card list wrote a card into a stop)
    const show = () => {
      for (const box of boxes) {
        box.hidden = !type || box.dataset.type !== type.value;
        if (!box.hidden) box.follow();
      }
    };
    show();
    if (watch) watch.abort();   // the last editor's listeners go with it
    watch = new AbortController();
    if (type) type.addEventListener('change', show, { signal: watch.signal });
    // JSON typed by hand: the lists follow it (a list left saying pile 1 while Save sent pile 2: a second review)
    fields.addEventListener('input', () => { for (const box of boxes) if (!box.hidden) box.follow(); }, { signal: watch.signal });
    root.append(...boxes);
    return { sync: () => { for (const box of boxes) if (!box.hidden) box.sync(); } };   // table.js, before a save
  };
}
