// New game: the game, its players in seating order, an optional title, and the house rules
// (built from each game's spec: true/false, whole numbers, choices).
import { api, bootData, clear, el, showProblem, started } from './common.js';

const B = bootData();
const games = B.games || [];
const select = document.getElementById('game');
const players = document.getElementById('players');
const options = document.getElementById('options');
const problem = document.getElementById('problem');

function spec() { return games.find((g) => g.name === select.value); }

function human(name) { return name.replace(/_/g, ' '); }

function playerInput(i, value = '') {
  return el('label', { class: 'field inline' }, `${i + 1}.`,
    el('input', { name: 'player', value, autocomplete: 'off', placeholder: `Player ${i + 1}`,
      'aria-label': `Player ${i + 1}` }));
}

function names() { return [...players.querySelectorAll('input')].map((i) => i.value.trim()); }

function setPlayers(count) {
  const keep = names();
  clear(players);
  for (let i = 0; i < count; i += 1) players.append(playerInput(i, keep[i] || ''));
  const s = spec();
  document.getElementById('add-player').disabled = count >= s.max_players;
  document.getElementById('remove-player').disabled = count <= s.min_players;
}

// What a new game starts with: the rule's `fresh` value where it has one (a log without the rule means `default`,
// as games logged before the rule was added were played), else its default.
function start(option) { return option.fresh !== undefined ? option.fresh : option.default; }

function optionField(option) {
  const id = `opt-${option.name}`;
  let input;
  if (option.kind === 'bool') {
    input = el('input', { type: 'checkbox', id, checked: start(option) === true });
  } else if (option.kind === 'int') {
    input = el('input', { type: 'number', id, value: start(option), min: option.low, max: option.high, step: 1,
      inputmode: 'numeric' });
  } else {
    input = el('select', { id }, option.choices.map((c) => el('option', { value: JSON.stringify(c),
      selected: c === start(option) }, human(String(c)))));   // "bags only", as the table's Rules box says it
  }
  input.dataset.option = option.name;
  return el('div', { class: 'field' }, el('label', { for: id }, human(option.name)), input,
    el('div', { class: 'muted' }, option.help));
}

function chosenOptions() {
  const out = {};
  for (const option of spec().options) {
    const input = options.querySelector(`[data-option="${option.name}"]`);
    let value;
    if (option.kind === 'bool') value = input.checked;
    else if (option.kind === 'int') {
      const span = `${option.low !== undefined ? ` from ${option.low}` : ''}${option.high !== undefined ? ` to ${option.high}` : ''}`;
      const wrong = new Error(`${human(option.name)} must be a whole number${span}`);
      if (!/^-?\d+$/.test(input.value.trim())) throw wrong;
      value = Number(input.value);
      // said here, not by the server: Number() rounds 99999999999999999999, echoed back as 100000000000000000000
      if ((option.low !== undefined && value < option.low) || (option.high !== undefined && value > option.high)) throw wrong;
    } else value = JSON.parse(input.value);
    if (value !== start(option)) out[option.name] = value;   // the server starts a new game with the same
  }
  return out;
}

// "Play again" sends every rule as the game was played; the house rules box opens where one differs from what a
// new game starts with, so that the host sees it.
function setOptions(values) {
  let differs = false;
  for (const option of spec().options) {
    if (!Object.prototype.hasOwnProperty.call(values, option.name)) continue;
    const value = values[option.name];
    const input = options.querySelector(`[data-option="${option.name}"]`);
    if (input.type === 'checkbox') input.checked = value === true;
    else if (input.tagName === 'SELECT') input.value = JSON.stringify(value);
    else input.value = String(value);
    if (value !== start(option)) differs = true;
  }
  if (differs) document.getElementById('options-box').open = true;
}

function showGame() {
  const s = spec();
  document.getElementById('game-summary').textContent = s.rules_summary || `${s.min_players}–${s.max_players} players`;
  document.getElementById('teams-hint').textContent = s.teams
    ? 'Partners sit opposite each other: players 1 & 3 play against players 2 & 4.' : '';
  const again = B.players && B.chosen === s.name ? B.players : null;   // "Play again": the last game's players
  const want = Math.min(s.max_players, Math.max(s.min_players, (again || names()).length || 4));
  setPlayers(want);
  if (again) players.querySelectorAll('input').forEach((input, i) => { input.value = again[i] || ''; });
  clear(options);
  for (const option of s.options) options.append(optionField(option));
  if (again) setOptions(B.options || {});
  document.getElementById('options-box').hidden = !s.options.length;
}

for (const g of games) select.append(el('option', { value: g.name }, g.title));
if (!games.length) showProblem(problem, 'No game is installed.');
select.value = games.some((g) => g.name === B.chosen) ? B.chosen : (games.find((g) => g.name === 'spades') || games[0] || {}).name;
select.addEventListener('change', showGame);
document.getElementById('add-player').addEventListener('click', () => setPlayers(names().length + 1));
document.getElementById('remove-player').addEventListener('click', () => setPlayers(names().length - 1));
if (games.length) showGame();

document.getElementById('new-game-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  showProblem(problem, '');
  const list = names();
  if (list.some((n) => !n)) { showProblem(problem, 'Every player needs a name.'); return; }
  let chosen;
  try { chosen = chosenOptions(); } catch (err) { showProblem(problem, err.message); return; }
  const button = document.getElementById('start');
  button.disabled = true;
  try {
    const result = await api('POST', '/api/games', {
      game: select.value, players: list, options: chosen, title: document.getElementById('title').value,
      // "Play again": the finished game's phones are offered the way into this one
      ...(B.again && select.value === B.chosen ? { again: B.again } : {}),
    });
    // ?from: this screen's "I am" in the game played again goes on in the new one (table.js)
    window.location.assign(B.again && select.value === B.chosen
      ? `${result.url}?from=${encodeURIComponent(B.again)}` : result.url);
  } catch (err) {
    showProblem(problem, err.message);
    button.disabled = false;
    button.focus();
  }
});
// A refusal is said above the Start button, which a phone's keyboard ("Go") can leave below the screen: it is
// brought into view (it sat 190 px under a 780 px screen: accessibility audit, session 36).
new MutationObserver(() => { if (!problem.hidden) problem.scrollIntoView({ block: 'center' }); })
  .observe(problem, { childList: true, characterData: true, subtree: true, attributes: true });
if (B.problem) showProblem(problem, B.problem);
started();   // boot.js says so when a screen never gets here
