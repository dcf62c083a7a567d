// repeater's practice page. It talks to the player over one WebSocket (/ws): it sends the commands
// the terminal and stdin send ({"key": "]"}, {"command": "rate 0.8"}) and receives what the JSON
// status lines carry (status, events) and the document (the lists the status does not carry).
// The waveform comes from the peaks the player computed (/peaks): the browser decodes no audio.
"use strict";

const $ = (id) => document.getElementById(id);
const page = {
  doc: null,          // the document: file, frames, rate, beats, bars, lines, loops, takes, keys
  status: null,       // the last status line
  peaks: null,        // {low: Int8Array, high: Int8Array, count}
  socket: null,
  offset: null,       // performance.now() - the player's mono_ms, at the least delay seen
  offsets: [],
  drag: null,         // {which: "a"|"b", frame}
  pending: {},        // a handle's frame sent, shown until the status has it
  lastLineIndex: null,
};
window.repeaterPage = page;  // for the tests: read-only use

// MARK: the connection

function connect() {
  const socket = new WebSocket(`ws://${location.host}/ws`);
  page.socket = socket;
  socket.onopen = () => { $("offline").hidden = true; };
  socket.onmessage = (message) => receive(JSON.parse(message.data));
  socket.onclose = () => {
    if (page.socket !== socket) return;
    page.socket = null;
    $("offline").hidden = false;
    $("state").textContent = "offline";
    setTimeout(connect, 1000);
  };
}

function send(object) {
  if (page.socket && page.socket.readyState === WebSocket.OPEN) page.socket.send(JSON.stringify(object));
}
const command = (line) => send({ command: line });
const key = (name) => send({ key: name });
setInterval(() => send({ ping: Date.now() }), 5000);

function receive(message) {
  if (message.document) return setDocument(message.document);
  if (message.event) return event(message);
  if (message.note) return toast(message.note, false);
  if (message.state) return setStatus(message);
}

function event(e) {
  if (e.event === "error") toast(e.message, true);
  else if (e.event === "loops" && e.names) toast("loops: " + e.names.join(", "), false);
}

let toastTimer = null;
function toast(text, isError) {
  const box = $("toast");
  box.textContent = text;
  box.className = isError ? "error" : "";
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
}

// MARK: time

const rate = () => (page.doc ? page.doc.sample_rate : 48000);
function formatTime(frame, decimals = 3) {
  const seconds = Math.max(0, frame / rate());
  const minutes = Math.floor(seconds / 60);
  const rest = seconds - minutes * 60;
  const text = rest.toFixed(decimals).padStart(decimals ? 3 + decimals : 2, "0");
  return `${minutes}:${text}`;
}

// The frame heard now: the status's frame, moved on by the speed since the player took it.
function playheadFrame(now = performance.now()) {
  const s = page.status;
  if (!s) return 0;
  let frame = s.frame;
  if (s.state === "playing" && page.offset !== null) {
    const elapsed = Math.max(0, Math.min(1, (now - (s.mono_ms + page.offset)) / 1000));
    frame += elapsed * s.rate * rate();
    if (s.loop && frame >= s.b && s.b > s.a) frame = s.a + ((frame - s.b) % (s.b - s.a));
  }
  return Math.max(0, Math.min(page.doc ? page.doc.frames : frame, frame));
}
page.playheadFrame = playheadFrame;

// MARK: the document

function setDocument(doc) {
  const first = !page.doc;
  page.doc = doc;
  $("file").textContent = doc.file;
  document.title = `${doc.file} · repeater`;
  $("duration").textContent = formatTime(doc.frames, 0);
  $("keys-text").textContent = doc.keys;
  if (doc.peaks.ready && (!page.peaks || page.peaks.count !== doc.peaks.buckets)) loadPeaks();
  renderLineList();
  renderLoops();
  renderTakes();
  overviewImage = null;
  if (first) draw();
}

async function loadPeaks() {
  const response = await fetch("/peaks", { cache: "no-store" });
  if (!response.ok) return;
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (String.fromCharCode(...bytes.slice(0, 4)) !== "RPK1") return;
  const count = new DataView(bytes.buffer).getUint32(4, true);
  const values = new Int8Array(bytes.buffer, 8, count * 2);
  const low = new Int8Array(count), high = new Int8Array(count);
  for (let i = 0; i < count; i++) { low[i] = values[2 * i]; high[i] = values[2 * i + 1]; }
  page.peaks = { low, high, count };
  overviewImage = null;
}

function renderLineList() {
  const list = $("line-list");
  list.textContent = "";
  const lines = page.doc.lines;
  $("lines").hidden = lines.length === 0;
  lines.forEach(([start, , text], index) => {
    const item = document.createElement("li");
    const time = document.createElement("span");
    time.className = "t";
    time.textContent = formatTime(start, 1);
    item.append(time, text);
    item.dataset.index = index + 1;
    item.addEventListener("click", () => command(`line ${index + 1}`));
    list.append(item);
  });
  page.lastLineIndex = null;
}

function renderLoops() {
  const list = $("loop-list");
  list.textContent = "";
  page.doc.loops.forEach((loop, index) => {
    const button = document.createElement("button");
    button.textContent = index < 9 ? `${index + 1} ${loop.name}` : loop.name;
    button.title = `${formatTime(loop.a)} – ${formatTime(loop.b)}`;
    button.dataset.name = loop.name;
    // The first nine by their key (a name such as "1:00-1:10" would read as times in `loop NAME`).
    button.addEventListener("click", () => (index < 9 ? key(String(index + 1)) : command(`loop ${loop.name}`)));
    const remove = document.createElement("button");
    remove.className = "del";
    remove.textContent = "×";
    remove.title = `delete ${loop.name}`;
    remove.addEventListener("click", () => { if (confirm(`Delete the loop “${loop.name}”?`)) command(`loop delete ${loop.name}`); });
    list.append(button, remove);
  });
  if (page.doc.loops.length === 0) list.innerHTML = '<span class="muted">none yet: set A and B, then keep them here (N)</span>';
}

function renderTakes() {
  const list = $("take-list");
  list.textContent = "";
  for (const take of page.doc.takes.slice().reverse()) {
    const item = document.createElement("li");
    item.value = take.number;
    item.dataset.number = take.number;
    const what = take.kind === "answer" ? `answer to line ${take.line}` : `pass ${take.pass}`;
    item.append(`${what}, ${formatTime(take.a, 1)}–${formatTime(take.b, 1)}, ${Math.round(take.speed * 100)} % `);
    const play = document.createElement("button");
    play.textContent = "▶ compare";
    play.addEventListener("click", () => command(`take play ${take.number}`));
    const keep = document.createElement("button");
    keep.textContent = take.kept ? "kept" : "keep";
    keep.disabled = take.kept;
    keep.addEventListener("click", () => command(`take keep ${take.number}`));
    const remove = document.createElement("button");
    remove.textContent = "delete";
    remove.addEventListener("click", () => { if (confirm(`Delete take ${take.number}?`)) command(`take delete ${take.number}`); });
    item.append(play, keep, remove);
    list.append(item);
  }
}

// MARK: the status

function setStatus(s) {
  const now = performance.now();
  // The least delay seen estimates the clocks' offset (the newest 50 messages).
  page.offsets.push(now - s.mono_ms);
  if (page.offsets.length > 50) page.offsets.shift();
  page.offset = Math.min(...page.offsets);
  page.status = s;
  for (const which of ["a", "b"]) if (page.pending[which] === s[which]) delete page.pending[which];

  $("state").textContent = s.state;
  $("play").textContent = s.state === "playing" ? "❚❚" : "▶";
  $("loop").classList.toggle("on", s.loop);
  $("click").classList.toggle("on", !!s.click);
  setControl("speed", Math.round(s.rate * 100), `${Math.round(s.rate * 100)} %`);
  setControl("pitch", s.pitch, `${s.pitch > 0 ? "+" : ""}${Math.round(s.pitch * 100) / 100} st`);
  const db = s.volume_db === null ? -Infinity : s.volume_db;
  setControl("volume", Math.max(-40, db), db === -Infinity ? "−∞ dB" : `${db > 0 ? "+" : ""}${db.toFixed(1)} dB`);
  setControl("pan", Math.round(s.pan * 10), s.pan === 0 ? "C" : `${s.pan < 0 ? "L" : "R"} ${Math.round(Math.abs(s.pan) * 100)}`);
  if (document.activeElement !== $("snap")) $("snap").value = s.snap;

  showLoop();
  const map = [];
  if (s.bar !== undefined) map.push(`bar ${s.bar} beat ${s.beat}`);
  if (s.tempo_bpm) map.push(`${s.tempo_bpm.toFixed(1)} BPM`);
  if (s.beats_per_bar) map.push(`${s.beats_per_bar} beats a bar`);
  if (s.key) map.push(s.key);
  if (s.map === "analysing") map.push(`analysing ${Math.round((s.map_progress || 0) * 100)} %`);
  $("mapline").textContent = map.join("   ");

  showLines(s);
  showTrainer(s);
  showTakes(s);
  showNotes(s);
  drawMeters(s);
  const loops = [...$("loop-list").querySelectorAll("button[data-name]")];
  for (const button of loops) button.classList.toggle("now", button.dataset.name === s.active_loop);
  $("health").textContent = `xruns ${s.xruns} · underruns ${s.underruns} · load ${(s.load * 100).toFixed(1)} % · pages ${s.web_clients}`;
  document.dispatchEvent(new CustomEvent("repeater-status", { detail: s }));
}

function setControl(id, value, text) {
  const input = $(id);
  if (document.activeElement !== input && !input.dataset.dragging) input.value = value;
  $(`${id}-value`).textContent = text;
}

function showLoop() {
  const s = page.status;
  if (!s) return;
  for (const which of ["a", "b"]) {
    const frame = page.drag && page.drag.which === which ? page.drag.frame : (page.pending[which] ?? s[which]);
    const element = $(`${which}-time`);
    element.textContent = formatTime(frame);
    element.dataset.frame = frame;
  }
  const a = Number($("a-time").dataset.frame), b = Number($("b-time").dataset.frame);
  $("loop-length").textContent = s.loop ? `${((b - a) / rate()).toFixed(3)} s` : "loop off";
  $("passes").textContent = s.loop ? `⟲ ×${s.loops}` : "";
}

function showLines(s) {
  if (!page.doc || page.doc.lines.length === 0) return;
  const index = s.line ? s.line.index : null;
  $("line-now").textContent = s.line ? s.line.text : "";
  // (index is 1-based: the next line's 0-based index is the same number)
  const next = index !== null ? index : page.doc.lines.findIndex(([start]) => start > s.frame);
  const nextLine = next >= 0 && next < page.doc.lines.length ? page.doc.lines[next] : null;
  $("line-next").textContent = nextLine ? nextLine[2] : "";
  $("drill").textContent = s.drill ? `drill: line ${s.drill.line} of ${page.doc.lines.length}, pass ${s.drill.pass} of ${s.drill.passes}` : "";
  if (index !== page.lastLineIndex) {
    page.lastLineIndex = index;
    for (const item of $("line-list").children) item.classList.toggle("now", Number(item.dataset.index) === index);
  }
}

function showTrainer(s) {
  const t = s.trainer;
  $("trainer-state").textContent = t
    ? `${Math.round(t.from * 100)} % → ${Math.round(t.to * 100)} %, +${Math.round(t.step * 100)} % every ${t.every} passes: now ${Math.round(t.speed * 100)} %${t.done ? " (done)" : `, ${t.passes} of ${t.every}`}`
    : "off";
}

function showTakes(s) {
  const record = s.record;
  $("takes").hidden = !record;
  if (!record) return;
  $("record").classList.toggle("on", record.armed);
  $("record-state").textContent = `${record.recording ? "recording" : record.armed ? "armed" : "not armed"} · round trip ${record.round_trip} frames${record.measured ? " (measured)" : ""} · ${record.takes} takes`;
  for (const item of $("take-list").children) item.classList.toggle("now", Number(item.dataset.number) === record.playing);
}

function showNotes(s) {
  const strip = $("note-strip");
  if (!s.notes) return;
  strip.textContent = "";
  if (s.chord) {
    const chord = document.createElement("span");
    chord.className = "chord";
    chord.textContent = s.chord;
    strip.append(chord);
  }
  for (const note of s.notes) {
    const name = document.createElement("span");
    name.className = "note";
    name.textContent = note.name;
    const cents = document.createElement("span");
    cents.className = Math.abs(note.cents) > 15 ? "cents off" : "cents";
    cents.textContent = `${note.cents > 0 ? "+" : ""}${Math.round(note.cents)}¢`;
    name.append(cents);
    strip.append(name);
  }
  if (!s.chord && s.notes.length === 0) strip.innerHTML = '<span class="muted">notes: none heard</span>';
}

// MARK: drawing

let overviewImage = null;

function fit(canvas) {
  const ratio = window.devicePixelRatio || 1;
  const width = Math.round(canvas.clientWidth * ratio), height = Math.round(canvas.clientHeight * ratio);
  if (canvas.width !== width || canvas.height !== height) {
    canvas.width = width;
    canvas.height = height;
    return true;
  }
  return false;
}

// The waveform of frames [from, to) into the canvas's full width, from the peaks.
function drawWave(context, width, height, from, to) {
  const peaks = page.peaks;
  if (!peaks || !page.doc || to <= from) return 0;
  const frames = page.doc.frames;
  const middle = height / 2;
  context.fillStyle = getComputedStyle(document.documentElement).getPropertyValue("--wave");
  let drawn = 0;
  for (let x = 0; x < width; x++) {
    const first = Math.floor(((from + (x / width) * (to - from)) / frames) * peaks.count);
    const last = Math.max(first + 1, Math.floor(((from + ((x + 1) / width) * (to - from)) / frames) * peaks.count));
    let low = 0, high = 0;
    for (let i = Math.max(0, first); i < Math.min(peaks.count, last); i++) {
      if (peaks.low[i] < low) low = peaks.low[i];
      if (peaks.high[i] > high) high = peaks.high[i];
    }
    const top = middle - (high / 127) * middle, bottom = middle - (low / 127) * middle;
    if (bottom - top >= 1) drawn++;
    context.fillRect(x, top, 1, Math.max(1, bottom - top));
  }
  return drawn;
}

// The map's beats (thin) and bars (with their numbers) between `from` and `to`.
function drawGrid(context, width, height, from, to, numbers) {
  if (!page.doc) return;
  const x = (frame) => ((frame - from) / (to - from)) * width;
  const span = to - from;
  const beats = page.doc.beats;
  if (beats.length && span / rate() < 60) {
    context.fillStyle = "rgba(255,255,255,0.12)";
    for (const frame of beats) if (frame >= from && frame < to) context.fillRect(Math.round(x(frame)), 0, 1, height);
  }
  const bars = page.doc.downbeats;
  const every = Math.max(1, Math.ceil(bars.length / Math.max(1, (width / (window.devicePixelRatio || 1)) / 28) / (page.doc.frames / Math.max(1, span))));
  context.fillStyle = "rgba(255,255,255,0.35)";
  context.font = `${11 * (window.devicePixelRatio || 1)}px system-ui, sans-serif`;
  bars.forEach((frame, index) => {
    if (frame < from || frame >= to || index % every !== 0) return;
    const left = Math.round(x(frame));
    context.fillRect(left, 0, 1, height);
    if (numbers) context.fillText(String(index + 1), left + 3, 12 * (window.devicePixelRatio || 1));
  });
}

// What the zoomed view shows: the loop and a tenth of it either side; without a loop, 8 s around the playhead.
function zoomRange() {
  const s = page.status, frames = page.doc ? page.doc.frames : 1;
  let a = s ? s.a : 0, b = s ? s.b : frames;
  if (page.drag) { if (page.drag.which === "a") a = page.drag.frame; else b = page.drag.frame; }
  if (s && s.loop && b - a < frames * 0.98) {
    if (page.zoomLoop && page.drag) return page.zoomLoop;
    const margin = Math.max((b - a) * 0.12, rate() * 0.25);
    page.zoomLoop = [Math.max(0, a - margin), Math.min(frames, b + margin)];
    return page.zoomLoop;
  }
  const center = playheadFrame(), half = rate() * 4;
  const from = Math.max(0, Math.min(frames - 2 * half, center - half));
  return [from, Math.min(frames, from + 2 * half)];
}

function draw() {
  requestAnimationFrame(draw);
  if (!page.doc) return;
  const frames = page.doc.frames, s = page.status;
  // The playhead never steps back by a little: a status line that comes late (a busy network, a
  // server cycle late) holds it until the estimate catches up; a wrap or a seek moves it at once.
  let head = playheadFrame();
  if (s && s.state === "playing" && page.shownHead !== undefined && head < page.shownHead && page.shownHead - head < rate() * 0.15 * s.rate) head = page.shownHead;
  page.shownHead = head;
  const ratio = window.devicePixelRatio || 1;

  const overview = $("overview");
  if (fit(overview)) overviewImage = null;
  const o = overview.getContext("2d");
  if (!overviewImage) {
    // The whole file's waveform and bars, drawn once into a canvas of its own.
    const image = document.createElement("canvas");
    image.width = overview.width;
    image.height = overview.height;
    const context = image.getContext("2d");
    overview.dataset.drawn = drawWave(context, image.width, image.height, 0, frames);
    drawGrid(context, image.width, image.height, 0, frames, false);
    if (page.peaks) overviewImage = image;
    o.clearRect(0, 0, overview.width, overview.height);
    o.drawImage(image, 0, 0);
  } else {
    o.clearRect(0, 0, overview.width, overview.height);
    o.drawImage(overviewImage, 0, 0);
  }
  if (s) {
    const x = (frame) => (frame / frames) * overview.width;
    if (s.loop) {
      o.fillStyle = "rgba(255,196,61,0.22)";
      o.fillRect(x(s.a), 0, Math.max(1, x(s.b) - x(s.a)), overview.height);
    }
    o.fillStyle = "#fff";
    o.fillRect(Math.round(x(head)) - ratio, 0, 2 * ratio, overview.height);
  }

  const zoom = $("zoom");
  fit(zoom);
  const z = zoom.getContext("2d");
  const [from, to] = zoomRange();
  const zx = (frame) => ((frame - from) / (to - from)) * zoom.width;
  z.clearRect(0, 0, zoom.width, zoom.height);
  if (s && s.loop) {
    const a = Number($("a-time").dataset.frame), b = Number($("b-time").dataset.frame);
    z.fillStyle = "rgba(255,196,61,0.12)";
    z.fillRect(zx(a), 0, zx(b) - zx(a), zoom.height);
  }
  zoom.dataset.drawn = drawWave(z, zoom.width, zoom.height, from, to);
  drawGrid(z, zoom.width, zoom.height, from, to, true);
  if (s) {
    for (const which of ["a", "b"]) {
      const frame = Number($(`${which}-time`).dataset.frame);
      if (!s.loop && !(page.drag && page.drag.which === which)) continue;
      const left = Math.round(zx(frame));
      z.fillStyle = which === "a" ? "#ffc43d" : "#ff7a45";
      z.fillRect(left - ratio, 0, 2 * ratio, zoom.height);
      // The handle: a flag to grab at the bottom.
      const size = 18 * ratio;
      z.beginPath();
      if (which === "a") { z.moveTo(left, zoom.height); z.lineTo(left + size, zoom.height); z.lineTo(left, zoom.height - size * 1.4); }
      else { z.moveTo(left, zoom.height); z.lineTo(left - size, zoom.height); z.lineTo(left, zoom.height - size * 1.4); }
      z.fill();
      z.font = `bold ${12 * ratio}px system-ui, sans-serif`;
      z.fillText(which.toUpperCase(), which === "a" ? left + 4 * ratio : left - 12 * ratio, zoom.height - size * 1.6);
    }
    z.fillStyle = "#fff";
    z.fillRect(Math.round(zx(head)) - ratio, 0, 2 * ratio, zoom.height);
  }
  $("position").textContent = formatTime(head);
  $("position").dataset.frame = Math.round(head);
}

function drawMeters(s) {
  const canvas = $("meters");
  fit(canvas);
  const c = canvas.getContext("2d");
  const meters = s.meters || [];
  c.clearRect(0, 0, canvas.width, canvas.height);
  if (!meters.length) return;
  const rowHeight = canvas.height / meters.length;
  const x = (db) => (Math.max(0, Math.min(60, (db ?? -120) + 60)) / 60) * canvas.width;
  meters.forEach((meter, index) => {
    const top = index * rowHeight + 2, height = rowHeight - 4;
    c.fillStyle = "#0c0f12";
    c.fillRect(0, top, canvas.width, height);
    c.fillStyle = meter.peak_db > -3 ? "#ffc43d" : "#5fd38d";
    c.fillRect(0, top, x(meter.rms_db), height);
    c.fillStyle = "rgba(95,211,141,0.35)";
    c.fillRect(x(meter.rms_db), top, Math.max(0, x(meter.peak_db) - x(meter.rms_db)), height);
    c.fillStyle = meter.clipped ? "#ff5c5c" : "#fff";
    c.fillRect(x(meter.hold_db) - 1, top, 2, height);
  });
  canvas.dataset.updates = Number(canvas.dataset.updates || 0) + 1;
}

// MARK: touch and mouse

function frameAt(canvas, clientX, from, to) {
  const box = canvas.getBoundingClientRect();
  return Math.round(from + ((clientX - box.left) / box.width) * (to - from));
}

// A/B snap to the map's beats or bars when the session snaps.
function snap(frame) {
  const s = page.status;
  if (!s || !page.doc || s.snap === "off") return frame;
  const marks = s.snap === "bar" ? page.doc.downbeats : page.doc.beats;
  let best = frame, distance = Infinity;
  for (const mark of marks) {
    const d = Math.abs(mark - frame);
    if (d < distance) { distance = d; best = mark; }
  }
  return best;
}

$("overview").addEventListener("click", (e) => {
  if (!page.doc) return;
  command(`seek ${Math.max(0, Math.min(page.doc.frames - 1, frameAt($("overview"), e.clientX, 0, page.doc.frames)))}f`);
});

const zoomCanvas = $("zoom");
zoomCanvas.addEventListener("pointerdown", (e) => {
  const s = page.status;
  if (!s || !page.doc) return;
  const [from, to] = zoomRange();
  const box = zoomCanvas.getBoundingClientRect();
  const xOf = (frame) => box.left + ((frame - from) / (to - from)) * box.width;
  const near = (frame) => Math.abs(e.clientX - xOf(frame)) <= 24;
  let which = null;
  if (s.loop) {
    const dA = Math.abs(e.clientX - xOf(s.a)), dB = Math.abs(e.clientX - xOf(s.b));
    if (near(s.a) || near(s.b)) which = dA < dB ? "a" : "b";
  }
  if (!which) {
    command(`seek ${Math.max(0, Math.min(page.doc.frames - 1, frameAt(zoomCanvas, e.clientX, from, to)))}f`);
    return;
  }
  page.zoomLoop = [from, to];
  page.drag = { which, frame: s[which] };
  zoomCanvas.setPointerCapture(e.pointerId);
  e.preventDefault();
});
zoomCanvas.addEventListener("pointermove", (e) => {
  if (!page.drag) return;
  const [from, to] = page.zoomLoop;
  const s = page.status;
  let frame = snap(Math.max(0, Math.min(page.doc.frames, frameAt(zoomCanvas, e.clientX, from, to))));
  if (page.drag.which === "a") frame = Math.min(frame, s.b - 1); else frame = Math.max(frame, s.a + 1);
  page.drag.frame = frame;
  showLoop();
});
function endDrag() {
  if (!page.drag) return;
  const { which, frame } = page.drag;
  page.drag = null;
  page.pending[which] = frame;
  command(`${which} ${frame}f`);
  showLoop();
}
zoomCanvas.addEventListener("pointerup", endDrag);
zoomCanvas.addEventListener("pointercancel", endDrag);

// Buttons that are keys of the terminal's.
for (const button of document.querySelectorAll("[data-key]")) button.addEventListener("click", () => key(button.dataset.key));
$("play").addEventListener("click", () => key(" "));

function slider(id, line) {
  const input = $(id);
  input.addEventListener("input", () => { input.dataset.dragging = "1"; });
  input.addEventListener("change", () => { delete input.dataset.dragging; command(line(Number(input.value))); });
}
slider("speed", (value) => `rate ${value / 100}`);
slider("pitch", (value) => `pitch ${value}`);
slider("volume", (value) => `volume ${value}dB`);
slider("pan", (value) => `pan ${value / 10}`);
$("snap").addEventListener("change", () => command(`snap ${$("snap").value}`));
$("compare").addEventListener("change", () => command(`compare ${$("compare").value}`));
$("loop-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const name = $("loop-name").value.trim();
  if (name) command(`loop save ${name}`); else key("N");
  $("loop-name").value = "";
});
$("trainer-form").addEventListener("submit", (e) => { e.preventDefault(); command(`trainer ${$("trainer-spec").value.trim()}`); });
$("trainer-off").addEventListener("click", () => command("trainer off"));
$("help").addEventListener("click", () => { $("keys").hidden = !$("keys").hidden; });
$("keys-close").addEventListener("click", () => { $("keys").hidden = true; });

// The terminal's keys, where no text is being typed.
const namedKeys = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", "Home", "End", "Enter"]);
document.addEventListener("keydown", (e) => {
  const target = e.target;
  if (target instanceof HTMLInputElement && (target.type !== "range") || target instanceof HTMLSelectElement || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "?" || (e.key === "h" && !e.repeat)) { $("keys").hidden = !$("keys").hidden; e.preventDefault(); return; }
  if (e.key === "Escape") { $("keys").hidden = true; return; }
  if (e.key.length === 1 || namedKeys.has(e.key)) {
    if (target instanceof HTMLButtonElement && (e.key === " " || e.key === "Enter")) e.preventDefault();
    key(e.key);
    e.preventDefault();
  }
});

window.addEventListener("resize", () => { overviewImage = null; });
connect();
