// Two phones that say they are the same player ("I am"): a friend picked the wrong name, or picked up Beth's phone, and
// his Snap call went in as Beth's and won her the piles, nothing said on either phone (roster audit F1, session 46).
// Each browser keeps a random id of its own (shared by its tabs, so two tabs are one phone); the live stream names it
// and "I am" (table.js connect), the server counts the phones per player among the game's open streams, and tells the
// screens whenever that changes (event: twins). Each phone that says it is such a player says so beside "I am".
const KEY = 'tablecall:phone';
let id = '';
let twins = [];   // [{player, phones}]: the players two phones or more say they are, as last heard

// This browser's id (storage blocked: this page's own, so a reload is another phone until the old stream is gone)
export function phoneId() {
  if (id) return id;
  try { id = localStorage.getItem(KEY) || ''; } catch (err) { id = ''; }
  if (!/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
    const bytes = new Uint8Array(12);
    window.crypto.getRandomValues(bytes);   // (crypto.randomUUID needs https: phones come over the LAN by http)
    id = Array.from(bytes, (b) => (b + 256).toString(16).slice(1)).join('');
    try { localStorage.setItem(KEY, id); } catch (err) { /* kept for this page */ }
  }
  return id;
}

export function heardTwins(message) {
  twins = message && Array.isArray(message.twins) ? message.twins : [];
}

// The notice beside "I am", for the player this screen says it is
export function drawTwins(me) {
  const node = document.getElementById('twins');
  if (!node) return;
  const found = me ? twins.filter((t) => t && t.player === me)[0] : null;
  const text = found ? `${found.phones} phones say they are ${me}: is one of them someone else's? `
    + 'Each phone should say its own player in “I am”.' : '';
  if (node.textContent !== text) node.textContent = text;
  node.hidden = !text;
}
