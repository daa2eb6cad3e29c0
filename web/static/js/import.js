// Import a game log (a file or pasted text); it becomes a new game.
import { api, bootData, showProblem, started } from './common.js';

// ?again=<id> (a game's "Fix players or seats…"): the import replaces that game, whose screens are offered the new one
const B = bootData();

const problem = document.getElementById('problem');
const text = document.getElementById('log');
const importButton = document.getElementById('import');
const notice = document.getElementById('imported');

// Another log after an import with fouls: the notice goes and the Import button comes back (they stayed, and nothing
// more could be imported without reloading the page: a review, session 40).
function another() {
  if (notice.hidden) return;
  notice.hidden = true;
  importButton.hidden = false;
  importButton.disabled = false;
}
text.addEventListener('input', another);

// Read as UTF-8 or not at all: file.text() turns every byte that is not UTF-8 into \ufffd, and a log an older Windows
// editor saved as 'ANSI' became a game of "Bj\ufffdrn" (the play-on audit, session 40); `tablecall replay` refuses it.
document.getElementById('file').addEventListener('change', async (e) => {
  const file = e.target.files[0];
  if (!file) return;
  showProblem(problem, '');
  another();
  const bytes = await file.arrayBuffer();
  e.target.value = '';   // the same file, edited and saved again, chosen again fired no 'change': its old text was
  // imported (the reviews, session 40); the text box shows what will be imported
  try {
    text.value = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (err) {
    text.value = '';
    showProblem(problem, `${file.name} is not UTF-8 text (older Windows editors save 'ANSI' or 'Unicode'): `
      + 'save it as UTF-8 and choose it again.');
  }
});

document.getElementById('import-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  showProblem(problem, '');
  if (!text.value.trim()) { showProblem(problem, 'Choose a log file or paste one.'); return; }
  const button = e.submitter || e.target.querySelector('button[type=submit]');
  if (button.disabled) return;
  button.disabled = true;   // a second click must not import the game twice
  try {
    const result = await api('POST', '/api/import', {
      log: text.value, title: document.getElementById('title').value, ...(B.again ? { again: B.again } : {}),
    });
    // ?from: this screen's "I am" in the game replaced goes on in the new one (table.js)
    if (B.again) result.url += `?from=${encodeURIComponent(B.again)}`;
    if (!result.faults) { window.location.assign(result.url); return; }
    // imported, but the referee rules some of its events fouls or errors: a header edited to play on (seats swapped,
    // a player added, a rule changed) can make another game of the same events, and nothing said so (the play-on
    // audit, session 40); the host reads it and opens the game (a second Import would make a second game)
    const many = result.faults === 1 ? 'one of its events a foul or an error'
      : `${result.faults} of its events fouls or errors`;
    document.getElementById('open-imported').href = result.url;
    notice.hidden = false;   // shown first, then its text: a live region that appears with its text is often not read
    button.hidden = true;
    document.getElementById('imported-text').textContent = `Imported as a new game. The referee rules ${many} `
      + `(the first, ${result.first_fault.replace(/\.$/, '')}): as in the game exported, unless you changed its `
      + 'players, their seats or the house rules; then check that this is the game you meant (the Log tab shows each).';
    document.getElementById('open-imported').focus();
  } catch (err) {
    showProblem(problem, err.message);
    button.disabled = false;
  }
});
if (B.problem) showProblem(problem, B.problem);
started();   // boot.js says so when a screen never gets here
