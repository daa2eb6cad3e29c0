// Import a game log (a file or pasted text); it becomes a new game.
import { api, showProblem, started } from './common.js';

const problem = document.getElementById('problem');
const text = document.getElementById('log');

// Read as UTF-8 or not at all: file.text() turns every byte that is not UTF-8 into \ufffd, and a log an older Windows
// editor saved as 'ANSI' became a game of "Bj\ufffdrn" (the play-on audit, session 40); `tablecall replay` refuses it.
document.getElementById('file').addEventListener('change', async (e) => {
  const file = e.target.files[0];
  if (!file) return;
  showProblem(problem, '');
  try {
    text.value = new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
  } catch (err) {
    text.value = '';
    showProblem(problem, `${file.name} is not UTF-8 text (an older Windows editor saves 'ANSI'): `
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
    const result = await api('POST', '/api/import', { log: text.value, title: document.getElementById('title').value });
    window.location.assign(result.url);
  } catch (err) {
    showProblem(problem, err.message);
    button.disabled = false;
  }
});
started();   // boot.js says so when a screen never gets here
