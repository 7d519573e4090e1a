// The HTML of `faultmesh view` pages (sim/view.h): styles and script inline, the run
// data in a JSON script element (@DATA@, the "page data" of sim/view.cpp), nothing
// loaded from anywhere. docs/view.md describes every element. The script renders the
// machine as SVG, one element per link direction, and recolours it for the window the
// scrubber (or the URL: #w=N, the Nth window of the first run, or #cycle=C; &link=x,y:D
// or &chip=x,y hovers one) selects; the
// DOM carries what is shown (data-window, data-flits, data-util, class "dead") so a
// headless browser test can read it back. Errors in the page are listed in #errors.
#pragma once

namespace fm {

inline const char* const kViewPage = R"PAGE(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>@TITLE@</title>
<style>
body { font: 13px/1.35 system-ui, sans-serif; margin: 12px; color: #222; background: #fff; }
h1 { font-size: 16px; margin: 0 0 8px; }
h2 { font-size: 14px; margin: 4px 0; }
#runs { display: flex; gap: 16px; align-items: flex-start; flex-wrap: wrap; }
.run { display: flex; gap: 12px; align-items: flex-start; }
.run.two { flex-direction: column; }
table.figures { border-collapse: collapse; }
table.figures td { padding: 1px 6px; vertical-align: top; border-bottom: 1px solid #eee; max-width: 340px; }
table.figures td:first-child { color: #666; white-space: nowrap; }
svg.mesh { background: #fafafa; border: 1px solid #ddd; }
.chip { fill: #c8d3df; stroke: #8796a8; stroke-width: 0.5; }
.chip.dead { fill: #333; stroke: #000; }
.chip.hover, .link.hover { stroke: #06c; stroke-width: 2; }
.board { fill: none; stroke: #b8c0ca; stroke-width: 0.6; }
.board.dead { stroke: #d00; stroke-width: 2; stroke-dasharray: 4 2; }
.link { stroke-linecap: butt; }
.link.dead { stroke: #d00 !important; stroke-dasharray: 2 2; opacity: 0.8; }
.cross { stroke: #d00; stroke-width: 1.5; }
#controls { margin: 10px 0 4px; display: flex; gap: 8px; align-items: center; }
#scrub { width: 640px; }
#timeline { border: 1px solid #ddd; background: #fff; }
#timeline .phase { opacity: 0.35; }
#timeline .event { stroke: #d00; stroke-width: 1; }
#timeline text { font-size: 10px; }
#cursor { stroke: #06c; stroke-width: 2; }
#info { min-height: 54px; padding: 6px; background: #f4f6f8; border: 1px solid #dde; width: 640px; white-space: pre-wrap; font-family: ui-monospace, monospace; font-size: 12px; }
#legend { font-size: 11px; display: flex; align-items: center; gap: 4px; }
#errors { color: #b00; }
</style>
</head>
<body>
<ul id="errors" data-count="0" hidden></ul>
<script>
// Errors of this page go to #errors (and the console), so a test can read them.
window.fmErrors = [];
function fmError(m) {
  window.fmErrors.push(String(m));
  const e = document.getElementById('errors');
  const li = document.createElement('li');
  li.textContent = String(m);
  e.appendChild(li);
  e.dataset.count = String(window.fmErrors.length);
  e.hidden = false;
}
window.addEventListener('error', ev => fmError(ev.message + ' (line ' + ev.lineno + ')'));
(function () {
  const orig = console.error;
  console.error = function (...a) { fmError(a.join(' ')); orig.apply(console, a); };
})();
</script>
<h1 id="title">@TITLE@</h1>
<div id="runs"></div>
<div id="controls">
  <button id="play" type="button">play</button>
  <input id="scrub" type="range" min="0" max="1" step="1" value="0">
  <span id="now"></span>
  <span id="legend"></span>
</div>
<svg id="timeline" width="640" height="60"></svg>
<div id="info">hover over a link or a chip</div>
<script type="application/json" id="data">@DATA@</script>
<script>
'use strict';
const D = JSON.parse(document.getElementById('data').textContent);
const SVGNS = 'http://www.w3.org/2000/svg';
const PORT = ['N', 'E', 'S', 'W'];
const DX = [0, 1, 0, -1], DY = [1, 0, -1, 0];  // y grows north
function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
// Utilization (flits per cycle, 0..1) to colour: grey when idle, then yellow to dark red.
const STOPS = [[0, [221, 221, 221]], [0.001, [255, 245, 176]], [0.35, [253, 174, 97]], [0.7, [227, 74, 51]], [1, [127, 0, 0]]];
function colour(u) {
  u = Math.max(0, Math.min(1, u));
  for (let i = 1; i < STOPS.length; ++i) {
    if (u <= STOPS[i][0]) {
      const [a, ca] = STOPS[i - 1], [b, cb] = STOPS[i];
      const f = b > a ? (u - a) / (b - a) : 1;
      const c = ca.map((v, k) => Math.round(v + f * (cb[k] - v)));
      return 'rgb(' + c.join(',') + ')';
    }
  }
  return 'rgb(127,0,0)';
}
const runs = D.runs;
const endAll = Math.max(1, ...runs.map(r => r.end));
const two = runs.length > 1;
// One panel per run: the machine drawn to scale (every chip a square, link directions
// side by side between them), and its key figures.
runs.forEach((r, ri) => {
  const panel = document.createElement('div');
  panel.className = 'run' + (two ? ' two' : '');
  panel.dataset.run = String(ri);
  document.getElementById('runs').appendChild(panel);
  const h2 = document.createElement('h2');
  h2.textContent = r.name + ' (' + r.kind + ')';
  const col = document.createElement('div');
  col.appendChild(h2);
  panel.appendChild(col);
  const room = two ? 440 : 600;
  const s = Math.max(8, Math.min(56, Math.floor(room / Math.max(r.w, r.h))));
  const m = s;  // margin: room for the wraparound stubs
  const svg = el('svg', {class: 'mesh', width: r.w * s + 2 * m, height: r.h * s + 2 * m, 'data-run': ri}, col);
  const cx = x => m + x * s + s / 2, cy = y => m + (r.h - 1 - y) * s + s / 2;
  const half = s * 0.22, off = s * 0.12, lw = Math.max(1.5, s * 0.16);
  r.chipEl = [];
  r.linkEl = [];
  // Boards: outlines of the board grid.
  for (let by = 0; by * r.board[1] < r.h; ++by)
    for (let bx = 0; bx * r.board[0] < r.w; ++bx) {
      const x0 = bx * r.board[0], y0 = by * r.board[1];
      const w = Math.min(r.board[0], r.w - x0), h = Math.min(r.board[1], r.h - y0);
      el('rect', {class: 'board', x: m + x0 * s + 1, y: m + (r.h - y0 - h) * s + 1, width: w * s - 2, height: h * s - 2}, svg);
    }
  for (let y = 0; y < r.h; ++y)
    for (let x = 0; x < r.w; ++x) {
      const c = el('rect', {class: 'chip', x: cx(x) - half, y: cy(y) - half, width: 2 * half, height: 2 * half,
                            'data-chip': x + ',' + y}, svg);
      c.addEventListener('mouseover', () => hoverChip(r, x, y, c));
      r.chipEl[y * r.w + x] = c;
    }
  // Link directions: leaving chip (x,y) through port p, drawn on the right-hand side of
  // the direction of travel; a torus wraparound as a stub into the margin.
  r.links.forEach((l, i) => {
    const [x, y, p] = l;
    const dx = DX[p], dy = -DY[p];  // screen direction
    const nx = -dy, ny = dx;  // right-hand normal on screen
    const wrap = x + DX[p] < 0 || x + DX[p] >= r.w || y + DY[p] < 0 || y + DY[p] >= r.h;
    const x1 = cx(x) + dx * (half + 1) + nx * off * 1.6, y1 = cy(y) + dy * (half + 1) + ny * off * 1.6;
    const len = wrap ? s / 2 - 1 : s - 2 * half - 2;
    const e = el('line', {class: 'link', x1: x1, y1: y1, x2: x1 + dx * len, y2: y1 + dy * len, 'stroke-width': lw,
                          'data-link': x + ',' + y + ':' + PORT[p], 'data-i': i}, svg);
    if (wrap) e.classList.add('wrap');
    e.addEventListener('mouseover', () => hoverLink(r, i, e));
    r.linkEl[i] = e;
  });
  // Failed boards on top: from their cycle a red dashed outline (class dead), with the
  // board's coordinates in its title; hidden before.
  r.boardEl = r.dead_boards.map(b => {
    const [x0, y0, w, h] = b;
    const e = el('rect', {class: 'board failed', x: m + x0 * s - 1, y: m + (r.h - y0 - h) * s - 1, width: w * s + 2, height: h * s + 2,
                          'data-board': b[5] + ',' + b[6]}, svg);
    el('title', {}, e).textContent = 'board (' + b[5] + ',' + b[6] + ') dead from cycle ' + b[4];
    return e;
  });
  // When each element dies (Infinity: never).
  r.linkIndex = {};
  r.links.forEach((l, i) => { r.linkIndex[l.join(',')] = i; });
  r.linkDead = r.links.map(() => Infinity);
  r.linkCause = r.links.map(() => '');
  for (const d of r.dead_links) {
    const i = r.linkIndex[d[0] + ',' + d[1] + ',' + d[2]];
    if (i !== undefined) { r.linkDead[i] = d[3]; r.linkCause[i] = d[4]; }
  }
  r.chipDead = new Array(r.w * r.h).fill(Infinity);
  for (const d of r.dead_chips) r.chipDead[d[1] * r.w + d[0]] = d[2];
  // Totals over the run, per link.
  r.total = r.links.map((_, i) => r.windows.reduce((a, w) => a + w[2][i], 0));
  // Key figures.
  const t = document.createElement('table');
  t.className = 'figures';
  t.dataset.run = String(ri);
  for (const [id, label, text] of r.figures) {
    const tr = document.createElement('tr');
    tr.dataset.fig = id;
    const a = document.createElement('td'), b = document.createElement('td');
    a.textContent = label;
    b.textContent = text;
    tr.append(a, b);
    t.appendChild(tr);
  }
  panel.appendChild(t);
});

// The window of run r shown at cycle t: the last one starting at or before t.
function windowAt(r, t) {
  let k = 0;
  for (let i = 0; i < r.windows.length; ++i) if (r.windows[i][0] <= t) k = i;
  return k;
}
function roleOf(r, x, y, t) {
  let s = null;
  for (const e of r.roles) if (!s || e.from <= t) s = e;
  if (!s) return null;
  const k = s.chip[y * r.w + x];
  return k >= 0 ? s.names[k] + ' (' + s.algo + ')' : null;
}
let now = 0, hovered = null;
// Shows cycle t: every run's mesh coloured by its window at t, the dead marked.
function show(t) {
  now = t;
  document.body.dataset.cycle = String(t);
  for (const r of runs) {
    const wi = windowAt(r, t);
    const w = r.windows[wi];
    const svg = document.querySelector('svg.mesh[data-run="' + runs.indexOf(r) + '"]');
    svg.dataset.window = String(wi);
    const span = w ? Math.max(1, w[1] - w[0]) : 1;
    r.linkEl.forEach((e, i) => {
      const f = w ? w[2][i] : 0;
      const dead = r.linkDead[i] <= t;
      e.classList.toggle('dead', dead);
      e.setAttribute('data-flits', String(f));
      e.setAttribute('data-util', (f / span).toFixed(4));
      e.setAttribute('stroke', colour(f / span));
    });
    r.chipEl.forEach((e, id) => e.classList.toggle('dead', r.chipDead[id] <= t));
    r.boardEl.forEach((e, k) => {
      const dead = r.dead_boards[k][4] <= t;
      e.classList.toggle('dead', dead);
      e.style.display = dead ? '' : 'none';
    });
  }
  const w0 = runs[0].windows[windowAt(runs[0], t)];
  document.getElementById('now').textContent = 'cycle ' + t + (w0 ? '  (window ' + w0[0] + '..' + w0[1] + ')' : '');
  document.getElementById('scrub').value = String(t);
  const c = document.getElementById('cursor');
  if (c) { c.setAttribute('x1', tx(t)); c.setAttribute('x2', tx(t)); }
  if (hovered) hovered();
}
function dropsOfLink(r, i) {
  const l = r.links[i];
  const d = r.link_drops[l[0] + ',' + l[1] + ':' + PORT[l[2]]];
  return d ? 'dead link ' + d[0] + ', dead destination ' + d[1] : 'none';
}
function hoverLink(r, i, e) {
  document.querySelectorAll('.hover').forEach(h => h.classList.remove('hover'));
  e.classList.add('hover');
  hovered = () => {
    const [x, y, p] = r.links[i];
    const w = r.windows[windowAt(r, now)];
    const f = w ? w[2][i] : 0, span = w ? Math.max(1, w[1] - w[0]) : 1;
    const to = '(' + (((x + DX[p]) % r.w + r.w) % r.w) + ',' + (((y + DY[p]) % r.h + r.h) % r.h) + ')';
    document.getElementById('info').textContent =
      r.name + ': link (' + x + ',' + y + ') ' + PORT[p] + ' -> ' + to + '\n' +
      'window ' + (w ? w[0] + '..' + w[1] : '-') + ': utilization ' + (f / span).toFixed(3) + ', ' + f + ' flits' +
      '; whole run ' + r.total[i] + ' flits\n' +
      'drops: ' + dropsOfLink(r, i) +
      (r.linkDead[i] < Infinity ? '\ndead from cycle ' + r.linkDead[i] + ' (' + (r.linkCause[i] === 'chip' ? 'a dead chip at an end' : 'link failure') + ')' : '');
  };
  hovered();
}
function hoverChip(r, x, y, e) {
  document.querySelectorAll('.hover').forEach(h => h.classList.remove('hover'));
  e.classList.add('hover');
  hovered = () => {
    const w = r.windows[windowAt(r, now)];
    let out = 0, inn = 0, outTot = 0;
    r.links.forEach((l, i) => {
      if (l[0] === x && l[1] === y) { out += w ? w[2][i] : 0; outTot += r.total[i]; }
      const nx = ((l[0] + DX[l[2]]) % r.w + r.w) % r.w, ny = ((l[1] + DY[l[2]]) % r.h + r.h) % r.h;
      if (nx === x && ny === y) inn += w ? w[2][i] : 0;
    });
    const id = y * r.w + x;
    const role = roleOf(r, x, y, now);
    const span = w ? Math.max(1, w[1] - w[0]) : 1;
    const dr = r.chip_drops[x + ',' + y];
    document.getElementById('info').textContent =
      r.name + ': chip (' + x + ',' + y + '), board (' + Math.floor(x / r.board[0]) + ',' + Math.floor(y / r.board[1]) + ')' +
      (r.chipDead[id] < Infinity ? ', dead from cycle ' + r.chipDead[id] : '') + '\n' +
      'role: ' + (role || 'not known') + '\n' +
      'window ' + (w ? w[0] + '..' + w[1] : '-') + ': out ' + out + ' flits (' + (out / span / 4).toFixed(3) + ' per link), in ' + inn +
      ' flits; whole run out ' + outTot + ' flits\n' +
      'drops: ' + (dr !== undefined ? 'dead router ' + dr : 'none');
  };
  hovered();
}
// The timeline: one lane per run with its phases, the mean link utilization per window
// and the events, on one cycle axis under the scrubber.
const TW = 640, lane = 28;
function tx(t) { return 4 + (TW - 8) * t / endAll; }
(function timeline() {
  const svg = document.getElementById('timeline');
  svg.setAttribute('height', String(runs.length * lane + 14));
  const colours = ['#7aa6d6', '#9bd67a', '#d6a97a', '#c27ad6', '#d67a9b', '#7ad6c9'];
  runs.forEach((r, ri) => {
    const y0 = ri * lane + 2;
    r.phases.forEach((p, k) => {
      const rc = el('rect', {class: 'phase', x: tx(p[1]), y: y0, width: Math.max(1, tx(p[2]) - tx(p[1])), height: lane - 4,
                             fill: colours[k % colours.length], 'data-phase': p[0]}, svg);
      el('title', {}, rc).textContent = r.name + ': phase ' + p[0] + ', cycles ' + p[1] + '..' + p[2];
    });
    let prev = 0, pts = [];
    for (const [c, u] of r.series) { pts.push(tx(prev) + ',' + (y0 + (lane - 4) * (1 - u)), tx(c) + ',' + (y0 + (lane - 4) * (1 - u))); prev = c; }
    if (pts.length) el('polyline', {points: pts.join(' '), fill: 'none', stroke: '#333', 'stroke-width': 1}, svg);
    r.events.forEach(([c, what]) => {
      const ln = el('line', {class: 'event', x1: tx(c), x2: tx(c), y1: y0, y2: y0 + lane - 4, 'data-event': what}, svg);
      el('title', {}, ln).textContent = r.name + ': cycle ' + c + ': ' + what;
      ln.addEventListener('click', () => show(c));
    });
    el('text', {x: 6, y: y0 + 10}, svg).textContent = two ? r.name : 'mean link utilization, phases, events';
  });
  el('text', {x: 4, y: runs.length * lane + 12}, svg).textContent = '0';
  el('text', {x: TW - 4, y: runs.length * lane + 12, 'text-anchor': 'end'}, svg).textContent = endAll + ' cycles';
  el('line', {id: 'cursor', x1: tx(0), x2: tx(0), y1: 0, y2: runs.length * lane}, svg);
  svg.addEventListener('click', ev => {
    const b = svg.getBoundingClientRect();
    show(Math.round(Math.max(0, Math.min(endAll, (ev.clientX - b.left - 4) / (TW - 8) * endAll))));
  });
})();
// Legend: the colour scale.
(function legend() {
  const g = document.getElementById('legend');
  g.append('utilization 0');
  const svg = el('svg', {width: 120, height: 10}, g);
  for (let i = 0; i < 60; ++i) el('rect', {x: i * 2, y: 0, width: 2, height: 10, fill: colour(i / 59)}, svg);
  g.append('1 flit/cycle; dashed red: dead');
})();
// Scrubber and play: the play button steps through the first run's windows.
const scrub = document.getElementById('scrub');
scrub.max = String(endAll);
scrub.addEventListener('input', () => show(Number(scrub.value)));
let timer = null;
document.getElementById('play').addEventListener('click', () => {
  const b = document.getElementById('play');
  if (timer) { clearInterval(timer); timer = null; b.textContent = 'play'; return; }
  b.textContent = 'pause';
  const starts = runs[0].windows.map(w => w[0]);
  if (now >= starts[starts.length - 1]) show(0);
  timer = setInterval(() => {
    const next = starts.find(s => s > now);
    if (next === undefined) { clearInterval(timer); timer = null; b.textContent = 'play'; return; }
    show(next);
  }, 400);
});
function params() { return new URLSearchParams(location.hash.slice(1) || location.search.slice(1)); }
// The start position: #w=N (window N of the first run), #cycle=C, else the first window.
function fromHash() {
  const h = params();
  if (h.has('cycle')) return Math.max(0, Number(h.get('cycle')) || 0);
  const ws = runs[0].windows;
  if (h.has('w') && ws.length) return ws[Math.max(0, Math.min(ws.length - 1, Number(h.get('w')) || 0))][0];
  return ws.length ? ws[0][0] : 0;
}
// &link=x,y:D or &chip=x,y: that element of the first run hovered (a link for a
// bookmark, and for the browser test).
function hoverFromHash() {
  const h = params(), r = runs[0];
  if (h.has('link')) {
    const e = r.linkEl.find(l => l.dataset.link === h.get('link'));
    if (e) hoverLink(r, Number(e.dataset.i), e);
  }
  if (h.has('chip')) {
    const [x, y] = h.get('chip').split(',').map(Number);
    const c = r.chipEl[y * r.w + x];
    if (c) hoverChip(r, x, y, c);
  }
}
window.addEventListener('hashchange', () => { show(fromHash()); hoverFromHash(); });
show(fromHash());
hoverFromHash();
document.body.dataset.ready = '1';
</script>
</body>
</html>
)PAGE";

// The sweep directory's index.html (sim/view.h write_sweep_index): the figures, and the
// points' table, sortable by clicking a column header (numbers as numbers).
inline const char* const kSweepIndexPage = R"PAGE(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>@TITLE@</title>
<style>
body { font: 13px/1.35 system-ui, sans-serif; margin: 12px; color: #222; }
h1 { font-size: 16px; }
figure { display: inline-block; margin: 4px; }
figure img { max-width: 420px; border: 1px solid #ddd; }
figcaption { font-size: 11px; color: #555; }
table { border-collapse: collapse; font-size: 12px; }
th, td { border: 1px solid #ddd; padding: 2px 6px; text-align: right; }
th { background: #f0f2f5; cursor: pointer; user-select: none; }
th.asc::after { content: ' \25B2'; }
th.desc::after { content: ' \25BC'; }
</style>
</head>
<body>
<h1>@TITLE@</h1>
<h2>Figures</h2>
@FIGURES@
<h2>Points</h2>
<p>Click a column header to sort; "view" opens the point's page.</p>
@TABLE@
<script>
'use strict';
// Sorts the table by the clicked column: numerically when both cells are numbers.
document.querySelectorAll('#points th[data-col]').forEach(th => th.addEventListener('click', () => {
  const col = Number(th.dataset.col), body = document.querySelector('#points tbody');
  const asc = !th.classList.contains('asc');
  document.querySelectorAll('#points th').forEach(h => h.classList.remove('asc', 'desc'));
  th.classList.add(asc ? 'asc' : 'desc');
  const rows = Array.from(body.rows);
  rows.sort((a, b) => {
    const x = a.cells[col].textContent, y = b.cells[col].textContent;
    const nx = parseFloat(x), ny = parseFloat(y);
    const isNum = v => /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(v);
    const c = isNum(x) && isNum(y) ? nx - ny : x.localeCompare(y);
    return asc ? c : -c;
  });
  rows.forEach(r => body.appendChild(r));
}));
</script>
</body>
</html>
)PAGE";

}  // namespace fm
