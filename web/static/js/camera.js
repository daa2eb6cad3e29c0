// The camera panel of the table screen: the annotated camera view (MJPEG, else polled snapshots), its
// status line, and for the host: "Use the camera for this game", calibration by clicking the table's four
// corners, and dragging the zones' corners (or, from the keyboard, a cross moved with the arrow keys and placed
// with Enter, and each zone corner focused with Tab and moved with the arrow keys). Writers get a Reject button
// on the camera's recent events.
import { api, clear, el, heldRows, holdChangedRows, holdMovedRows, isHeld, showProblem } from './common.js';

const SVG = 'http://www.w3.org/2000/svg';
const CORNERS = ['far-left', 'far-right', 'near-right', 'near-left'];
const POLL_MS = 1500;
const SNAPSHOT_MS = 700;
const MJPEG_RENEW_MS = 10 * 60 * 1000;   // the server ends a view after STREAM_MAX_S (15 min): renew before
const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
const KEY_STEP = 0.01;    // an arrow key moves a point a hundredth of the picture's width; with Shift a tenth
const PLACE_KEYS = new Set(['Enter', ' ']);   // place the corner under the cross

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

const STATES = {
  starting: 'camera starting', running: 'camera ok', lost: 'camera lost', failed: 'camera failed',
  ended: 'video ended', stopped: 'camera stopped',
};

export function statusLine(status) {
  const live = status && status.live;
  if (!live) return '';
  const parts = [STATES[live.camera.state] || live.camera.state];
  if (live.camera.state === 'running' && live.silent_s >= 1.5) {
    // a phone's stream that stalled stays "running" until its read times out (4 s): its last picture is not live
    parts.push(`no new picture for ${Math.round(live.silent_s)} s`);
  } else if (live.camera.state === 'running') {
    const fps = Number(live.fps || 0).toFixed(1);
    // a phone on weak Wi-Fi: cards turned between two of its pictures can be missed (phone-camera audit, s44)
    parts.push(live.slow_camera ? `only ${fps} pictures a second: cards can be missed` : `${fps} fps`);
    // a camera's pictures this computer is too slow to read are skipped: cards shown only briefly can be missed
    if (live.read_share !== undefined && live.read_share < 0.9) {
      parts.push(`too slow for every picture: reads ${Math.round(live.read_share * 100)}%`);
    }
    // a video file waits for a computer too slow for it: every picture is read, the game just goes slower
    if (live.speed !== undefined && live.speed < 0.9) parts.push(`video at ${Math.round(live.speed * 100)}% speed`);
  }
  const cal = live.calibration;
  parts.push(cal.state === 'ok' ? `calibrated (${cal.method === 'aruco' ? 'markers' : 'corners'})`
    : cal.state === 'moved' ? 'camera moved' : 'not calibrated');
  parts.push(live.detector.ready ? 'card detector ready' : 'no card detector');
  return parts.join(' · ');
}

export function initCamera({ gameId, role, canWrite, camera, send, describe, visible }) {
  const panel = document.getElementById('camera');
  if (!panel || !camera || !camera.configured) return { drawEvents() {} };
  const base = `/api/games/${gameId}/camera`;
  const host = role === 'host';
  const img = document.getElementById('camera-img');
  const overlay = document.getElementById('camera-overlay');
  const frame = document.getElementById('camera-frame');
  const node = (id) => document.getElementById(id);
  let status = camera;
  let mode = 'idle';            // idle | calibrate | zones
  let view = 'off';             // off | mjpeg | snapshot
  let shownGeneration = null;
  let clicks = [];
  let cross = null;             // calibrating from the keyboard: the point Enter places, [x, y] in the picture
  let zones = [];               // while editing: [{name, points: [[x, y]...], changed}]
  let snapshotTimer = null;
  let renewTimer = null;
  let lastState = null;
  let currentState = null;
  const snapshotsOnly = new URLSearchParams(location.search).get('camera') === 'snapshot';

  // -- the picture ---------------------------------------------------------------------------
  function stopView() {
    view = 'off';
    clearTimeout(snapshotTimer);
    clearTimeout(renewTimer);
    img.removeAttribute('src');
  }

  function snapshotLoop() {
    if (view !== 'snapshot') return;
    img.src = `${base}.jpg?n=${Date.now()}`;
  }

  function startView() {
    stopView();
    shownGeneration = status.generation;
    if (snapshotsOnly) { view = 'snapshot'; snapshotLoop(); return; }
    view = 'mjpeg';
    img.src = `${base}.mjpg?g=${status.generation}&n=${Date.now()}`;
    renewTimer = setTimeout(() => { if (view === 'mjpeg') startView(); }, MJPEG_RENEW_MS);
  }

  img.addEventListener('error', () => {
    if (view === 'mjpeg') {        // no MJPEG here (a browser without it, or too many views open): poll
      view = 'snapshot';
      clearTimeout(renewTimer);
      snapshotTimer = setTimeout(snapshotLoop, SNAPSHOT_MS);
    } else if (view === 'snapshot') {
      snapshotTimer = setTimeout(snapshotLoop, SNAPSHOT_MS * 3);
    }
  });
  img.addEventListener('load', () => {
    keepShape([img.naturalWidth, img.naturalHeight]);
    frame.dataset.view = view;
    if (view === 'snapshot') snapshotTimer = setTimeout(snapshotLoop, SNAPSHOT_MS);
    if (mode !== 'idle') sizeOverlay();
  });

  // The frame keeps the picture's shape while it shows none: stopped (the page hidden, the phone's screen off) it fell
  // back to the <img>'s 640 x 360, and the camera's 4:3 picture coming back grew it and moved the camera's list 57 px
  // under a finger (camlist, session 48). The size the camera's status gives, else the last picture's.
  function keepShape(size) {
    const [w, h] = size || [];
    if (!(w > 0 && h > 0) || (img.getAttribute('width') === String(w) && img.getAttribute('height') === String(h))) return;
    img.setAttribute('width', String(w));
    img.setAttribute('height', String(h));
  }

  function wanted() { return status.attached && visible() && document.visibilityState === 'visible'; }

  function syncView() {
    if (!wanted()) { if (view !== 'off') stopView(); return; }
    if (view === 'off' || status.generation !== shownGeneration) startView();
  }

  // -- status ----------------------------------------------------------------------------------
  function draw() {
    const placed = rowPlaces();   // the camera's rows before the panel above them changes (see drawEvents)
    const live = status.live;
    const overDemo = status.demo && !status.attached;   // a demo round that ended: the demo goes on in a new game
    panel.hidden = !(status.attached || status.can_attach || (host && status.problem) || overDemo);
    frame.hidden = !status.attached;
    if (status.image) keepShape(status.image.size);
    const state = node('camera-state');
    state.textContent = live ? (STATES[live.camera.state] || live.camera.state) : (status.attached ? '' : 'off');
    state.dataset.state = live ? live.camera.state : 'off';
    const line = node('camera-status');
    if (overDemo) {
      clear(line).append('This demo round is over: the demo goes on in a new game',
        ...(status.elsewhere ? [': ', el('a', { href: `/g/${status.elsewhere}`, id: 'camera-next' }, 'open it')]
          : [' (join it with the code on the laptop\'s Share tab).']));
    } else {
      line.textContent = status.attached ? `${status.source} · ${statusLine(status)}`
        : (status.elsewhere ? `${status.source} follows another game.` : `${status.source} does not follow this game.`);
    }
    const note = node('camera-note');
    note.textContent = status.note || '';
    note.hidden = !status.note;
    if (mode === 'idle') {
      const broken = live && ['lost', 'failed'].includes(live.camera.state);
      // a pipeline failing on every frame looked healthy: "running", a frozen picture (error-handling audit, s41)
      showProblem(node('camera-problem'), status.problem || (broken ? live.camera.message : '') || (live && (live.fault || live.unsaved)) || '');
      const help = node('camera-help');
      let text = '';
      if (live && live.calibration.state !== 'ok') text = live.calibration.message;
      else if (live && live.flags.length) text = live.flags.map((f) => f.message).join('; ');
      else if (live && live.notes.length) text = live.notes[live.notes.length - 1];
      help.textContent = text;
      help.hidden = !text;
    }
    if (host) drawTools();
    drawEvents(currentState, placed);
  }

  function drawTools() {
    const live = status.live;
    const idle = mode === 'idle';
    node('camera-attach').hidden = !(status.can_attach && !status.attached);
    node('camera-attach').textContent = status.elsewhere ? 'Use the camera for this game instead' : 'Use the camera for this game';
    node('camera-calibrate').hidden = !(idle && status.attached && live && live.camera.state === 'running');
    node('camera-zones').hidden = !(idle && status.attached && status.image && status.image.zones);
    node('camera-save').hidden = mode !== 'zones';
    node('camera-cancel').hidden = idle;
  }

  async function poll() {
    if (!visible() || document.visibilityState !== 'visible') { syncView(); return; }
    try {
      status = await api('GET', base);
      draw();
    } catch (err) {
      showProblem(node('camera-problem'), err.message);
      const state = node('camera-state');   // not heard from: its last state is not known to hold
      state.textContent = 'unknown';
      state.dataset.state = 'unknown';
    }
    syncView();
  }

  // -- the camera's events: Reject -----------------------------------------------------------
  // placed: rowPlaces() before the panel above the list was redrawn (its help line, note and tools come and go)
  function drawEvents(state, placed = null) {
    currentState = state || currentState;
    const list = node('camera-events');
    if (!list || !canWrite || !currentState) return;
    const saw = currentState.camera_saw || [];
    // the events themselves: one corrected from the Log kept its old card on every screen (camera-and-phones audit)
    const key = JSON.stringify(saw.map((s) => [s.event, s.rejected])) + status.attached;
    const before = placed || rowPlaces();
    // Reject became Restore (or back) under the finger, the row moved, or a new row came where rows were: a second
    // tap there is not taken for a while (a new event taking the top row got the tap meant for the misread card
    // below it: the review of session 44). Moved by the panel above too: a camera note coming on the help line moved
    // the rows 75 px down, and a tap aimed at the 2C's Reject 0.24 s later rejected the 7H (camhold, session 47)
    const changed = (row) => (before.has(row.dataset.seq) ? !samePlace(before.get(row.dataset.seq), rowNow(row)) : before.size > 0);
    if (key === lastState) { holdChangedRows(list.querySelectorAll('li[data-seq]'), changed, heldRows(list)); movedRows(); return; }
    lastState = key;
    const kept = heldRows(list);
    clear(list);
    if (!status.attached || !saw.length) { movedRows(); return; }
    list.append(el('li', { class: 'muted' }, 'The camera saw:'));
    // A rejected event keeps its row (struck out, with Restore): the list does not move up under a finger
    // about to tap again, so a second tap cannot reject the card below.
    for (const { event, rejected, read } of saw) {
      // corrected from the Log: what counts, and what the camera read (it said "saw 9H" for the 9S it read)
      const what = read ? `#${event.seq} ${describe(event)} (corrected: it read ${describe(read)})` : `#${event.seq} ${describe(event)}`;
      list.append(el('li', { class: rejected ? 'rejected' : '', dataset: { seq: event.seq } },
        el('span', { class: 'what', title: rejected ? 'rejected: it does not count' : null }, what),
        rejected
          ? el('button', { type: 'button', class: 'restore', onclick: (e) => undo(rejected, e.currentTarget) }, 'Restore')
          : el('button', { type: 'button', class: 'reject', onclick: (e) => undo(event.seq, e.currentTarget) }, 'Reject')));
    }
    holdChangedRows(list.querySelectorAll('li[data-seq]'), changed, kept);
    movedRows();
  }

  // Moved by anything else above the list (a failed poll's problem line, the twins line, the picture's shape, a
  // banner's line...): held as well, whatever moved it (common.js). A tap whose finger came down on a held row is
  // held though its click comes after the hold's end (a finger already on its way: the press is the aimed moment).
  const eventList = canWrite ? node('camera-events') : null;
  const movedRows = holdMovedRows(eventList, () => eventList.querySelectorAll('li[data-seq]'));
  let pressedHeld = null;   // {button, at}: the button a finger came down on while its row was held, when
  if (eventList) {
    eventList.addEventListener('pointerdown', (e) => {
      const button = e.target && e.target.closest ? e.target.closest('button') : null;
      pressedHeld = isHeld(button) ? { button, at: Date.now() } : null;
    }, true);
  }

  function rowNow(row) {   // what a finger finds at a row: its place and its button
    const button = row.querySelector('button');
    return { top: row.getBoundingClientRect().top, what: button ? button.className : '' };
  }

  function rowPlaces() {   // the listed rows: their event's number -> rowNow
    const list = node('camera-events');
    return new Map(list ? [...list.querySelectorAll('li[data-seq]')].map((r) => [r.dataset.seq, rowNow(r)]) : []);
  }

  // the same place (within 4 px, as the Enter tab's buttons: table.js's unchanged) and the same button
  function samePlace(a, b) { return Math.abs(a.top - b.top) < 4 && a.what === b.what; }

  async function undo(seq, button) {   // Reject: an undo of the camera's event; Restore: an undo of that undo
    // its own line: the camera's status, checked every 1.5 s, rewrites camera-problem (a refused Reject showed for a
    // second and the card still counted)
    const pressed = pressedHeld && pressedHeld.button === button && Date.now() - pressedHeld.at < 1000;
    pressedHeld = null;
    if (isHeld(button) || pressed) {
      showProblem(node('camera-refused'), 'That row had just changed under your finger, so the tap was not sent: tap again if you meant it.');
      return;
    }
    try { await send({ type: 'undo', target: seq }, node('camera-refused')); } catch (err) { /* shown */ }
  }

  // -- calibration and zones (host) ------------------------------------------------------------
  function pictureSize() { return [img.naturalWidth || 0, img.naturalHeight || 0]; }

  function sizeOverlay() {
    const [w, h] = pictureSize();
    if (w && h) overlay.setAttribute('viewBox', `0 0 ${w} ${h}`);
  }

  function toPicture(event) {
    const rect = overlay.getBoundingClientRect();
    const [w, h] = pictureSize();
    return [Math.round(((event.clientX - rect.left) * w) / rect.width), Math.round(((event.clientY - rect.top) * h) / rect.height)];
  }

  function help(text) {
    const node_ = node('camera-help');
    node_.textContent = text;
    node_.hidden = !text;
  }

  function enter(next) {
    const focused = overlay.contains(document.activeElement);
    mode = next;
    showProblem(node('camera-problem'), '');
    overlay.toggleAttribute('hidden', mode === 'idle');   // an SVG element has no .hidden property
    frame.classList.toggle('editing', mode !== 'idle');
    if (mode === 'calibrate') {   // focusable: the arrow keys move a cross, Enter places the corner
      overlay.setAttribute('tabindex', '0');
      overlay.setAttribute('role', 'application');
      overlay.setAttribute('aria-label', 'Camera view: move the cross with the arrow keys (Shift: faster), Enter places the corner, Escape cancels');
    } else {
      for (const name of ['tabindex', 'role', 'aria-label']) overlay.removeAttribute(name);
    }
    clear(overlay);
    sizeOverlay();
    drawTools();
    if (mode === 'idle') draw();
    if (mode === 'idle' && focused) {   // the keyboard's focus was on the view just hidden: back to the tools
      const back = ['camera-calibrate', 'camera-zones'].map(node).find((b) => b && !b.hidden);
      if (back) back.focus();
    }
  }

  function drawClicks() {
    clear(overlay);
    const r = Math.max(6, pictureSize()[0] / 90);
    if (cross && clicks.length < 4) {
      const [x, y] = cross;
      overlay.append(svg('path', { d: `M${x - 3 * r},${y}H${x + 3 * r}M${x},${y - 3 * r}V${y + 3 * r}`, class: 'cal-cross' }));
    }
    if (clicks.length > 1) overlay.append(svg('polyline', { points: clicks.map((p) => p.join(',')).join(' '), class: 'cal-line' }));
    clicks.forEach(([x, y], i) => {
      overlay.append(svg('circle', { cx: x, cy: y, r, class: 'cal-dot' }));
      const label = svg('text', { x: x + r * 1.4, y: y - r * 1.2, class: 'cal-label', 'font-size': r * 3 });
      label.textContent = String(i + 1);
      overlay.append(label);
    });
    help(clicks.length < 4
      ? `Click the play area's ${CORNERS[clicks.length]} corner (${clicks.length + 1} of 4), as the camera sees it`
        + ' (or move the cross with the arrow keys and press Enter).'
      : 'Saving the calibration…');
  }

  const NO_PICTURE = 'No camera picture yet: wait for the camera view, then place the corners.';

  async function clicked(point) {
    if (mode !== 'calibrate' || clicks.length >= 4) return;
    if (!pictureSize()[0]) { showProblem(node('camera-problem'), NO_PICTURE); return; }   // it sent [0, 0]: a 400
    clicks.push(point);
    drawClicks();
    if (clicks.length < 4) return;
    try {
      status = await api('POST', `${base}/corners`, { corners: clicks, size: pictureSize() });
      enter('idle');
    } catch (err) {
      clicks = [];
      drawClicks();
      showProblem(node('camera-problem'), err.message);
      overlay.focus();
    }
  }

  function startZones() {
    const image = status.image;
    const [w, h] = pictureSize();
    const sx = image.size && w ? w / image.size[0] : 1;
    const sy = image.size && h ? h / image.size[1] : 1;
    zones = image.zones.map((z) => ({ name: z.name, points: z.points.map(([x, y]) => [x * sx, y * sy]), changed: false }));
    enter('zones');
    drawZones();
    help('Drag a zone\'s corners onto the table (or Tab to a corner and move it with the arrow keys), then Save zones.');
  }

  function drawZones() {
    clear(overlay);
    const r = Math.max(7, pictureSize()[0] / 80);
    zones.forEach((zone, zi) => {
      const outline = svg('polygon', { points: zone.points.map((p) => p.join(',')).join(' '), class: zone.changed ? 'zone changed' : 'zone' });
      const title = svg('title');
      title.textContent = zone.name;
      outline.append(title);
      overlay.append(outline);
      zone.points.forEach(([x, y], pi) => {
        const handle = svg('circle', {
          cx: x, cy: y, r, class: 'handle', 'data-zone': zi, 'data-point': pi, tabindex: 0, role: 'button',
          'aria-label': `${zone.name}: corner ${pi + 1} of ${zone.points.length} (the arrow keys move it)`,
        });
        overlay.append(handle);
      });
    });
  }

  // -- from the keyboard: the arrow keys move the cross (calibrating) or the focused zone corner --------------
  function middle() { const [w, h] = pictureSize(); return [Math.round(w / 2), Math.round(h / 2)]; }

  function nudge(point, event) {
    const [w, h] = pictureSize();
    const step = Math.max(1, Math.round(w * KEY_STEP * (event.shiftKey ? 10 : 1)));
    const [dx, dy] = ARROWS[event.key];
    return [Math.min(w, Math.max(0, point[0] + dx * step)), Math.min(h, Math.max(0, point[1] + dy * step))];
  }

  overlay.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && mode !== 'idle') { event.preventDefault(); clicks = []; enter('idle'); return; }
    if (mode === 'calibrate') {
      if (!pictureSize()[0]) {
        if (ARROWS[event.key] || PLACE_KEYS.has(event.key)) { event.preventDefault(); showProblem(node('camera-problem'), NO_PICTURE); }
        return;
      }
      if (!cross) cross = middle();
      if (ARROWS[event.key]) { event.preventDefault(); cross = nudge(cross, event); drawClicks(); }
      else if (PLACE_KEYS.has(event.key)) { event.preventDefault(); clicked([...cross]); }
      return;
    }
    const target = event.target;
    if (mode !== 'zones' || !ARROWS[event.key] || !target.classList || !target.classList.contains('handle')) return;
    event.preventDefault();
    const [zi, pi] = [Number(target.dataset.zone), Number(target.dataset.point)];
    zones[zi].points[pi] = nudge(zones[zi].points[pi], event);
    zones[zi].changed = true;
    drawZones();
    overlay.querySelector(`circle.handle[data-zone="${zi}"][data-point="${pi}"]`).focus();   // the redraw's own
  });

  let dragging = null;
  overlay.addEventListener('pointerdown', (event) => {
    if (mode === 'calibrate') { event.preventDefault(); clicked(toPicture(event)); return; }
    if (mode !== 'zones' || !event.target.classList.contains('handle')) return;
    event.preventDefault();
    dragging = { zone: Number(event.target.dataset.zone), point: Number(event.target.dataset.point) };
    overlay.setPointerCapture(event.pointerId);
  });
  overlay.addEventListener('pointermove', (event) => {
    if (!dragging) return;
    event.preventDefault();
    const zone = zones[dragging.zone];
    zone.points[dragging.point] = toPicture(event);
    zone.changed = true;
    drawZones();
  });
  const drop = () => { dragging = null; };
  overlay.addEventListener('pointerup', drop);
  overlay.addEventListener('pointercancel', drop);

  async function saveZones() {
    const changed = Object.fromEntries(zones.filter((z) => z.changed).map((z) => [z.name, z.points]));
    if (!Object.keys(changed).length) { enter('idle'); return; }
    try {
      status = await api('POST', `${base}/zones`, { image: changed, size: pictureSize() });
      enter('idle');
    } catch (err) {
      showProblem(node('camera-problem'), err.message);
    }
  }

  if (host) {
    node('camera-attach').addEventListener('click', async () => {
      try {
        status = await api('POST', base, {});
        draw();
        syncView();
      } catch (err) { showProblem(node('camera-problem'), err.message); }
    });
    node('camera-calibrate').addEventListener('click', (event) => {
      clicks = [];
      cross = null;
      enter('calibrate');
      // from the keyboard (Enter or Space on the button: no pointer position), the cross starts in the middle
      if (!event.detail) {
        if (pictureSize()[0]) cross = middle();
        overlay.focus();
      }
      drawClicks();
    });
    node('camera-zones').addEventListener('click', (event) => {
      startZones();
      if (!event.detail) { const first = overlay.querySelector('circle.handle'); if (first) first.focus(); }
    });
    node('camera-save').addEventListener('click', saveZones);
    node('camera-cancel').addEventListener('click', () => { clicks = []; enter('idle'); });
  }

  draw();
  const begin = () => { syncView(); setInterval(poll, POLL_MS); };
  // The view starts after the page has loaded: an endless MJPEG body must not hold the page's load event.
  if (document.readyState === 'complete') begin(); else window.addEventListener('load', begin, { once: true });
  document.addEventListener('visibilitychange', syncView);
  window.addEventListener('pagehide', stopView);   // a page left for another lets its picture stream go
  window.addEventListener('pageshow', (e) => { if (e.persisted) syncView(); });
  window.addEventListener('hashchange', syncView);
  return { drawEvents };
}
