//===- ReportHtml.cpp - The plan as one self-contained HTML page ----------===//
//
// Part of memplan. IR-free: depends on LLVM Support only.
//
//===----------------------------------------------------------------------===//
//
// The page holds the plan's data as JSON in a <script> element and draws it
// with its own script on a canvas (no network, no library): per arena the
// packed buffers over time, the live bytes under them, the lower bound and
// the arena top, with zoom, pan, hover details, selection and a sortable
// table. The summaries above each picture are written here, so the page
// says what matters even with scripts off.
//
//===----------------------------------------------------------------------===//

#include "ReportInternal.h"
#include "memplan/Planning/Report.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"

using namespace mlir::memplan;
using llvm::json::Array;
using llvm::json::Object;

static std::string escapeHtml(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '&':
      out += "&amp;";
      break;
    case '"':
      out += "&quot;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

/// "1.50 KiB (1536 B)".
static std::string bytesText(uint64_t bytes) {
  std::string human = formatBytes(bytes);
  if (bytes < 1024)
    return human;
  return human + " (" + std::to_string(bytes) + " B)";
}

/// The part of an op description after " @ " (its location).
static llvm::StringRef locationOf(llvm::StringRef description) {
  size_t at = description.find(" @ ");
  return at == llvm::StringRef::npos ? llvm::StringRef()
                                     : description.drop_front(at + 3);
}

/// The data the page's script draws: one entry per report entry (null for
/// one without buffers).
static llvm::json::Value pageData(llvm::ArrayRef<ReportFunction> functions) {
  Array out;
  for (const ReportFunction &f : functions) {
    if (!f.unplannedReason.empty() || f.buffers.empty()) {
      out.push_back(nullptr);
      continue;
    }
    // A remat decision names the op that starts the buffer's chain; the
    // buffer's allocation carries the same location. Only a known location
    // that names one decision links (-1: several do).
    llvm::StringMap<int64_t> decisionAt;
    Array decisions;
    if (f.remat)
      for (auto [k, d] : llvm::enumerate(f.remat->decisions)) {
        llvm::StringRef loc = locationOf(d.value);
        if (!loc.empty() && !loc.starts_with("loc(unknown")) {
          auto [it, inserted] = decisionAt.try_emplace(loc, int64_t(k));
          if (!inserted)
            it->second = -1;
        }
        decisions.push_back(Object{{"v", d.value},
                                   {"r", d.recompute},
                                   {"b", static_cast<int64_t>(d.bytes)},
                                   {"c", d.cost}});
      }
    Array buffers;
    for (const ReportBuffer &b : f.buffers) {
      Array uses;
      for (int64_t step : b.useSteps)
        uses.push_back(step);
      Object buffer{{"i", b.id},
                    {"n", b.name},
                    {"p", b.producer},
                    {"s", static_cast<int64_t>(b.size)},
                    {"o", static_cast<int64_t>(b.offset)},
                    {"a", b.start},
                    {"b", b.end},
                    {"u", std::move(uses)}};
      if (b.recomputed)
        buffer["r"] = true;
      if (!b.sizeExpr.empty())
        buffer["e"] = b.sizeExpr;
      if (b.producerStep >= 0)
        buffer["ps"] = b.producerStep;
      auto it = decisionAt.find(locationOf(b.name));
      if (it != decisionAt.end() && it->second >= 0)
        buffer["d"] = it->second;
      buffers.push_back(std::move(buffer));
    }
    Array steps;
    for (const std::string &op : f.stepOps)
      steps.push_back(op);
    Object function{{"name", f.name},
                    {"arena", static_cast<int64_t>(f.arenaBytes)},
                    {"lb", static_cast<int64_t>(f.lowerBoundBytes)},
                    {"buffers", std::move(buffers)},
                    {"steps", std::move(steps)},
                    {"decisions", std::move(decisions)}};
    if (f.remat) {
      function["recompute_cost"] = f.remat->recomputeCost;
      function["baseline_cost"] = f.remat->baselineCost;
    }
    out.push_back(std::move(function));
  }
  return out;
}

static const char *const kHead = R"HTML(<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>memplan plan</title>
<style>
body { font: 14px sans-serif; margin: 20px; color: #222; }
h2 { margin: 28px 0 4px; }
.summary { margin-bottom: 6px; }
.help { color: #666; font-size: 12px; margin: 4px 0; }
canvas.plot { border: 1px solid #ccc; background: #fff; cursor: crosshair;
  display: block; }
#details { position: fixed; right: 16px; top: 16px; background: #fff;
  border: 1px solid #999; padding: 8px; min-width: 260px; max-width: 420px;
  white-space: pre-wrap; font: 12px monospace; z-index: 2; }
.legend { margin-right: 450px; }
.legend span { display: inline-block; margin-right: 14px; font-size: 12px; }
.legend i { display: inline-block; width: 14px; height: 10px;
  margin-right: 4px; vertical-align: middle; border: 1px solid #555; }
table.bufs { border-collapse: collapse; font-size: 12px; margin-top: 6px; }
table.bufs th { cursor: pointer; background: #eee; position: sticky; top: 0; }
table.bufs th, table.bufs td { border: 1px solid #ccc; padding: 2px 6px;
  text-align: right; }
table.bufs td.t { text-align: left; }
table.bufs tr.sel { background: #fde9d9; }
.tablewrap { max-height: 420px; overflow: auto; display: inline-block; }
</style></head><body>
<h1>memplan: arena plan</h1>
<div id="details">hover a buffer; click one to select it</div>
<div class="legend">
<span><i style="background:#6fa8dc"></i>buffer</span>
<span><i style="background:#93c47d"></i>kept for the backward pass (checkpoint)</span>
<span><i style="background:#e69138"></i>recomputed</span>
<span><i style="background:#d9d9d9;border-color:#999"></i>live bytes</span>
<span><i style="background:#c00;height:2px;border:0"></i>lower bound (peak live bytes)</span>
<span><i style="background:#000;height:2px;border:0"></i>arena top</span>
<span><i style="background:#0b8043;width:2px;border:0"></i>selected buffer's producer step</span>
<span><i style="background:#8e44ad;width:2px;border:0"></i>its uses</span>
</div>
)HTML";

// The page's script: reads the data, draws each arena on its canvas, and
// records what it drew on the canvas (data-drawn, data-peak, data-top, and
// data-draw-ms, the last redraw's time) and
// on <body> (data-status, data-errors) for tests and screenshots. The URL
// fragment may set a view: #view=K:FROM:TO (steps of arena K) and
// #select=K:ID.
static const char *const kScript = R"JS(<script>
'use strict';
const errors = [];
window.addEventListener('error', (e) => {
  errors.push(String(e.message));
  document.body.dataset.errors = errors.join(' | ');
});
const DATA = JSON.parse(document.getElementById('memplan-data').textContent);
const details = document.getElementById('details');
const UNITS = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
function human(b) {
  if (Math.abs(b) < 1024) return Math.round(b) + ' B';
  let v = b / 1024, i = 0;
  while (Math.abs(v) >= 1024 && i + 1 < UNITS.length) { v /= 1024; ++i; }
  return v.toFixed(2) + ' ' + UNITS[i];
}
// Tick spacing: 1, 2 or 5 times a power of ten, about `count` ticks; for
// bytes the same in the largest binary unit below the range.
function tickStep(range, count, binary) {
  let unit = 1;
  if (binary) while (unit * 1024 <= range) unit *= 1024;
  const raw = range / unit / count;
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
  for (const m of [1, 2, 5]) if (m * p >= raw) return m * p * unit;
  return 10 * p * unit;
}
function hashParams() {
  const out = {};
  for (const part of location.hash.replace(/^#/, '').split('&')) {
    const [k, v] = part.split('=');
    if (k && v) out[k] = v.split(':').map(Number);
  }
  return out;
}
const COLORS = { plain: '#6fa8dc', kept: '#93c47d', recomputed: '#e69138' };
class Plot {
  constructor(canvas, index, f) {
    this.canvas = canvas; this.index = index; this.f = f;
    this.ctx = canvas.getContext('2d');
    this.L = 84; this.R = 64; this.T = 12; this.B = 44;
    this.W = canvas.width; this.H = canvas.height;
    const dpr = window.devicePixelRatio || 1;
    canvas.style.width = this.W + 'px'; canvas.style.height = this.H + 'px';
    canvas.width = this.W * dpr; canvas.height = this.H * dpr;
    this.dpr = dpr;
    let last = 1, top = 0;
    for (const b of f.buffers) {
      last = Math.max(last, b.b); top = Math.max(top, b.o + b.s);
      b.kind = b.r ? 'recomputed'
          : (b.d !== undefined && !f.decisions[b.d].r) ? 'kept' : 'plain';
    }
    // Live bytes per step (half-open lifetimes).
    const live = new Float64Array(last + 1);
    for (const b of f.buffers) { live[b.a] += b.s; live[b.b] -= b.s; }
    let run = 0, peak = 0, peakStep = 0;
    for (let t = 0; t <= last; ++t) {
      run += live[t]; live[t] = run;
      if (run > peak) { peak = run; peakStep = t; }
    }
    this.live = live; this.last = last; this.peak = peak;
    this.peakStep = peakStep; this.top = top;
    this.full = [0, last, 0, Math.max(f.arena, peak, 1) * 1.04];
    [this.x0, this.x1, this.y0, this.y1] = this.full;
    this.sel = -1; this.pending = false;
    canvas.dataset.peak = String(peak);
    canvas.dataset.top = String(top);
    this.listen();
  }
  sx(t) { return this.L + (t - this.x0) / (this.x1 - this.x0) * (this.W - this.L - this.R); }
  sy(v) { return this.H - this.B - (v - this.y0) / (this.y1 - this.y0) * (this.H - this.B - this.T); }
  tx(px) { return this.x0 + (px - this.L) / (this.W - this.L - this.R) * (this.x1 - this.x0); }
  ty(py) { return this.y0 + (this.H - this.B - py) / (this.H - this.B - this.T) * (this.y1 - this.y0); }
  request() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }
  draw() {
    const started = performance.now();
    const c = this.ctx, f = this.f;
    c.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    c.clearRect(0, 0, this.W, this.H);
    c.save();
    c.beginPath();
    c.rect(this.L, this.T, this.W - this.L - this.R, this.H - this.T - this.B);
    c.clip();
    // The live bytes: per pixel column, the most live over its steps.
    // (drawn filled under the buffers and as a line over them)
    const curve = new Path2D();
    curve.moveTo(this.L, this.sy(0));
    for (let px = this.L; px < this.W - this.R; ++px) {
      let a = Math.max(0, Math.floor(this.tx(px))), b = Math.min(this.last, Math.floor(this.tx(px + 1)));
      let v = 0;
      for (let t = a; t <= b; ++t) v = Math.max(v, this.live[t]);
      curve.lineTo(px, this.sy(v)); curve.lineTo(px + 1, this.sy(v));
    }
    curve.lineTo(this.W - this.R, this.sy(0));
    c.fillStyle = 'rgba(160,160,160,0.35)';
    c.fill(curve);
    let drawn = 0;
    for (const b of f.buffers) {
      if (b.b <= this.x0 || b.a >= this.x1 || b.o >= this.y1 || b.o + b.s <= this.y0) continue;
      const x = this.sx(b.a), y = this.sy(b.o + b.s);
      const w = Math.max(this.sx(b.b) - x, 0.5), h = Math.max(this.sy(b.o) - y, 0.5);
      c.fillStyle = COLORS[b.kind];
      c.fillRect(x, y, w, h);
      if (w > 4 && h > 4) { c.strokeStyle = 'rgba(0,0,0,0.45)'; c.lineWidth = 0.5; c.strokeRect(x, y, w, h); }
      ++drawn;
    }
    const line = (v, color, dash) => {
      c.strokeStyle = color; c.lineWidth = 1.5; c.setLineDash(dash);
      c.beginPath(); c.moveTo(this.L, this.sy(v)); c.lineTo(this.W - this.R, this.sy(v)); c.stroke();
      c.setLineDash([]);
    };
    c.strokeStyle = 'rgba(90,90,90,0.8)'; c.lineWidth = 1;
    c.stroke(curve);
    line(f.lb, '#c00', [6, 3]);
    line(f.arena, '#000', []);
    if (this.sel >= 0) {
      const b = f.buffers[this.sel];
      const vline = (t, color) => {
        c.strokeStyle = color; c.lineWidth = 1.5;
        c.beginPath(); c.moveTo(this.sx(t + 0.5), this.T); c.lineTo(this.sx(t + 0.5), this.H - this.B); c.stroke();
      };
      for (const t of b.u) vline(t, '#8e44ad');
      vline(b.ps !== undefined ? b.ps : b.a, '#0b8043');
      const x = this.sx(b.a), y = this.sy(b.o + b.s);
      c.strokeStyle = '#c00'; c.lineWidth = 2.5;
      c.strokeRect(x, y, Math.max(this.sx(b.b) - x, 2), Math.max(this.sy(b.o) - y, 2));
    }
    c.restore();
    this.axes();
    this.canvas.dataset.drawn = String(drawn);
    this.canvas.dataset.drawMs = (performance.now() - started).toFixed(1);
  }
  axes() {
    const c = this.ctx;
    c.fillStyle = '#444'; c.strokeStyle = '#888'; c.lineWidth = 1;
    c.font = '11px sans-serif';
    c.beginPath();
    c.moveTo(this.L, this.T); c.lineTo(this.L, this.H - this.B); c.lineTo(this.W - this.R, this.H - this.B);
    c.stroke();
    const ys = tickStep(this.y1 - this.y0, 6, true);
    c.textAlign = 'right'; c.textBaseline = 'middle';
    for (let k = Math.ceil(this.y0 / ys), n = 0; k * ys <= this.y1 && n < 40; ++k, ++n) {
      const v = k * ys, y = this.sy(v);
      c.fillText(human(v), this.L - 6, y);
      c.beginPath(); c.moveTo(this.L - 3, y); c.lineTo(this.L, y); c.stroke();
    }
    const xs = Math.max(1, tickStep(this.x1 - this.x0, 10, false));
    c.textAlign = 'center'; c.textBaseline = 'top';
    for (let k = Math.ceil(this.x0 / xs), n = 0; k * xs <= this.x1 && n < 40; ++k, ++n) {
      const t = k * xs, x = this.sx(t);
      c.fillText(String(t), x, this.H - this.B + 5);
      c.beginPath(); c.moveTo(x, this.H - this.B); c.lineTo(x, this.H - this.B + 3); c.stroke();
    }
    c.fillText('step (hover for its op)', (this.L + this.W - this.R) / 2, this.H - this.B + 22);
    // Zoomed in far enough, each step's op is written along the time axis
    // (its name; the location is in the hover).
    const stepWidth = (this.W - this.L - this.R) / (this.x1 - this.x0);
    if (stepWidth >= 12 && this.f.steps.length) {
      c.save();
      c.fillStyle = '#333'; c.font = '10px sans-serif';
      c.textAlign = 'right'; c.textBaseline = 'middle';
      for (let t = Math.max(0, Math.ceil(this.x0)); t < Math.min(this.x1, this.f.steps.length); ++t) {
        const name = this.f.steps[t].split(' @ ')[0];
        if (!name) continue;
        c.save();
        // Down from the top of the picture.
        c.translate(this.sx(t + 0.5), this.T + 4);
        c.rotate(-Math.PI / 2);
        c.fillText(name, 0, 0);
        c.restore();
      }
      c.restore();
    }
    c.textAlign = 'left'; c.textBaseline = 'middle';
    const topY = this.sy(this.f.arena), lbY = this.sy(this.f.lb);
    c.fillText('arena', this.W - this.R + 4, topY);
    c.fillStyle = '#c00';
    c.fillText('LB', this.W - this.R + 4, Math.abs(lbY - topY) < 12 ? topY + 12 : lbY);
  }
  // The pixels painted in each buffer colour at the full view
  // (data-painted-plain/-kept/-recomputed): what a test can check was drawn.
  countPainted() {
    const img = this.ctx.getImageData(0, 0, this.canvas.width, this.canvas.height).data;
    const rgb = {};
    for (const [k, hex] of Object.entries(COLORS))
      rgb[k] = [1, 3, 5].map((i) => parseInt(hex.substr(i, 2), 16));
    const count = { plain: 0, kept: 0, recomputed: 0 };
    for (let i = 0; i < img.length; i += 4)
      for (const k in rgb)
        if (img[i] === rgb[k][0] && img[i + 1] === rgb[k][1] && img[i + 2] === rgb[k][2]) ++count[k];
    for (const k in count) this.canvas.dataset['painted' + k[0].toUpperCase() + k.slice(1)] = String(count[k]);
  }
  hit(px, py) {
    const t = this.tx(px), v = this.ty(py), bs = this.f.buffers;
    for (let i = bs.length - 1; i >= 0; --i) {
      const b = bs[i];
      if (b.a <= t && t < b.b && b.o <= v && v < b.o + b.s) return i;
    }
    return -1;
  }
  describe(i) {
    const f = this.f, b = f.buffers[i];
    let text = '@' + f.name + ' buffer ' + b.i + '\n' + (b.p || b.n) +
        '\nsize ' + human(b.s) + ' (' + b.s + ' B)' + (b.e ? ' = ' + b.e : '') +
        '\noffset ' + human(b.o) + ' (' + b.o + ')' +
        '\nlive [' + b.a + ', ' + b.b + '): ' + (b.b - b.a) + ' steps, ' + b.u.length + ' using steps';
    if (b.r) text += '\nrecomputed: a copy made for the backward pass';
    if (b.d !== undefined) text += '\nremat: ' + reason(f, f.decisions[b.d]);
    if (b.ps !== undefined) text += '\nproduced at step ' + b.ps;
    if (b.a < f.steps.length) text += '\nallocated at step ' + b.a + ': ' + f.steps[b.a];
    return text;
  }
  stepText(t) {
    const s = Math.floor(t);
    return s >= 0 && s < this.f.steps.length ? 'step ' + s + ': ' + this.f.steps[s] +
        '\nlive ' + human(this.live[s]) : '';
  }
  setView(x0, x1, y0, y1) {
    const [fx0, fx1, fy0, fy1] = this.full;
    // At most about 10^6-fold zoom in bytes: finer would lose the ticks to
    // rounding on arenas of petabytes.
    const w = Math.min(Math.max(x1 - x0, 2), fx1 - fx0),
          h = Math.min(Math.max(y1 - y0, 1, (fy1 - fy0) * 1e-6), fy1 - fy0);
    x0 = Math.min(Math.max(x0, fx0), fx1 - w); y0 = Math.min(Math.max(y0, fy0), fy1 - h);
    this.x0 = x0; this.x1 = x0 + w; this.y0 = y0; this.y1 = y0 + h;
    this.request();
  }
  select(i, zoom) {
    if (!(Number.isInteger(i) && i >= 0 && i < this.f.buffers.length)) i = -1;
    this.sel = i;
    if (i >= 0 && zoom) {
      const b = this.f.buffers[i], pad = Math.max(2, (b.b - b.a) * 0.5);
      this.setView(b.a - pad, b.b + pad, this.y0, this.y1);
    }
    if (i >= 0) details.textContent = this.describe(i);
    if (this.table) for (const row of this.table.rows) row.classList.toggle('sel', Number(row.dataset.i) === i);
    this.request();
  }
  listen() {
    const cv = this.canvas;
    let drag = null;
    const at = (e) => { const r = cv.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };
    cv.addEventListener('wheel', (e) => {
      e.preventDefault();
      const [px, py] = at(e), k = Math.exp(e.deltaY * 0.0015);
      if (e.shiftKey) {
        const v = this.ty(py);
        this.setView(this.x0, this.x1, v - (v - this.y0) * k, v + (this.y1 - v) * k);
      } else {
        const t = this.tx(px);
        this.setView(t - (t - this.x0) * k, t + (this.x1 - t) * k, this.y0, this.y1);
      }
    }, { passive: false });
    cv.addEventListener('mousedown', (e) => { drag = { p: at(e), v: [this.x0, this.x1, this.y0, this.y1], moved: false }; });
    window.addEventListener('mouseup', (e) => {
      if (drag && !drag.moved && e.target === cv) { const [px, py] = at(e); this.select(this.hit(px, py), false); }
      drag = null;
    });
    cv.addEventListener('mousemove', (e) => {
      const [px, py] = at(e);
      if (drag) {
        const dx = px - drag.p[0], dy = py - drag.p[1];
        if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
        const [x0, x1, y0, y1] = drag.v;
        const st = (x1 - x0) / (this.W - this.L - this.R), sv = (y1 - y0) / (this.H - this.T - this.B);
        this.setView(x0 - dx * st, x1 - dx * st, y0 + dy * sv, y1 + dy * sv);
        return;
      }
      const i = this.hit(px, py);
      const step = this.stepText(this.tx(px));
      details.textContent = (i >= 0 ? this.describe(i) + '\n\n' : '') + step;
    });
    cv.addEventListener('dblclick', () => { this.setView(...this.full); });
  }
  buildTable(table) {
    this.table = table;
    const f = this.f;
    const cols = [
      ['id', (b) => b.i, (b) => b.i],
      ['producer', (b) => b.p || b.n, (b) => b.p || b.n],
      ['size', (b) => b.s, (b) => human(b.s)],
      ['offset', (b) => b.o, (b) => b.o],
      ['start', (b) => b.a, (b) => b.a],
      ['end', (b) => b.b, (b) => b.b],
      ['steps', (b) => b.b - b.a, (b) => b.b - b.a],
      ['remat', (b) => b.r ? 2 : b.d !== undefined ? 1 : 0,
       (b) => b.r ? 'recomputed copy' : b.d !== undefined ? reason(f, f.decisions[b.d]) : ''],
    ];
    let order = f.buffers.map((b, i) => i), key = 2, dir = -1;
    const render = () => {
      order.sort((x, y) => {
        const a = cols[key][1](f.buffers[x]), b = cols[key][1](f.buffers[y]);
        return (a < b ? -1 : a > b ? 1 : x - y) * dir;
      });
      const head = '<tr>' + cols.map((c, k) => '<th data-k="' + k + '">' + c[0] +
          (k === key ? (dir > 0 ? ' \u25b2' : ' \u25bc') : '') + '</th>').join('') + '</tr>';
      const esc = (s) => String(s).replace(/[&<>"]/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch]);
      table.innerHTML = head + order.map((i) => {
        const b = f.buffers[i];
        return '<tr data-i="' + i + '"' + (i === this.sel ? ' class="sel"' : '') + '>' +
            cols.map((c, k) => '<td' + (k === 1 || k === 7 ? ' class="t"' : '') + '>' + esc(c[2](b)) + '</td>').join('') + '</tr>';
      }).join('');
    };
    table.addEventListener('click', (e) => {
      const th = e.target.closest('th');
      if (th) { const k = Number(th.dataset.k); dir = k === key ? -dir : (k === 1 ? 1 : -1); key = k; render(); return; }
      const tr = e.target.closest('tr');
      if (tr && tr.dataset.i !== undefined) this.select(Number(tr.dataset.i), true);
    });
    render();
  }
}
function reason(f, d) {
  const share = f.baseline_cost ? ' (' + (100 * d.c / f.baseline_cost).toFixed(2) + '% of the step)' : '';
  return d.r ? 'recomputed: ' + human(d.b) + ' not kept until the backward pass, recompute cost ' + d.c.toPrecision(4) + share
             : 'kept (checkpoint): recomputing it would cost ' + d.c.toPrecision(4) + share;
}
const plots = [];
for (const cv of document.querySelectorAll('canvas.plot')) {
  const k = Number(cv.dataset.fn);
  const p = new Plot(cv, k, DATA[k]);
  plots[k] = p;
  p.draw();
  p.countPainted();
  const tbl = document.querySelector('table.bufs[data-fn="' + k + '"]');
  const box = tbl && tbl.closest('details');
  if (box) box.addEventListener('toggle', () => { if (box.open && !p.table) p.buildTable(tbl); });
  const reset = document.querySelector('button[data-reset="' + k + '"]');
  if (reset) reset.addEventListener('click', () => p.setView(...p.full));
}
const h = hashParams();
if (h.view && plots[h.view[0]]) { const p = plots[h.view[0]]; p.setView(h.view[1], h.view[2], p.y0, p.y1); p.draw(); }
if (h.select && plots[h.select[0]]) { plots[h.select[0]].select(h.select[1], false); plots[h.select[0]].draw(); }
document.body.dataset.status = errors.length ? 'errors' : 'ok';
</script>
)JS";

llvm::Error
mlir::memplan::writeHtmlReport(llvm::StringRef path,
                               llvm::ArrayRef<ReportFunction> functions) {
  auto osOr = detail::openOutput(path);
  if (!osOr)
    return osOr.takeError();
  llvm::raw_ostream &os = **osOr;
  os << kHead;
  for (auto [k, f] : llvm::enumerate(functions)) {
    os << "<section class=\"fn\" data-fn=\"" << k << "\"><h2>@"
       << escapeHtml(f.name)
       << (f.memorySpace.empty()
               ? ""
               : ", memory space " + escapeHtml(f.memorySpace))
       << "</h2>\n";
    if (!f.unplannedReason.empty()) {
      os << "<div class=\"summary\">left unplanned: "
         << escapeHtml(f.unplannedReason) << "</div></section>\n";
      continue;
    }
    double ratio =
        f.lowerBoundBytes ? double(f.arenaBytes) / f.lowerBoundBytes : 1;
    os << "<div class=\"summary\" data-arena=\"" << f.arenaBytes
       << "\" data-lb=\"" << f.lowerBoundBytes << "\">arena "
       << bytesText(f.arenaBytes) << ", lower bound "
       << bytesText(f.lowerBoundBytes) << ", arena/LB "
       << llvm::format("%.4f", ratio) << "; " << f.buffers.size()
       << " buffers, algorithm " << escapeHtml(f.algorithm)
       << (f.optimal ? ", proven minimal" : "") << ", alignment " << f.alignment
       << "</div>\n";
    if (!f.optimal && f.provenLowerBoundBytes > f.lowerBoundBytes)
      os << "<div class=\"summary\">proven: no arena below "
         << bytesText(f.provenLowerBoundBytes) << "</div>\n";
    if (f.remat) {
      size_t recomputed = 0;
      uint64_t dropped = 0;
      for (const RematDecision &d : f.remat->decisions)
        if (d.recompute) {
          ++recomputed;
          dropped += d.bytes;
        }
      os << "<div class=\"summary\">rematerialization: " << recomputed << " of "
         << f.remat->decisions.size() << " saved values recomputed ("
         << escapeHtml(formatBytes(dropped)) << " not kept), extra compute "
         << llvm::format("%.4g", f.remat->recomputeCost);
      if (f.remat->baselineCost > 0)
        os << " = "
           << llvm::format("%.1f", 100.0 * f.remat->recomputeCost /
                                       f.remat->baselineCost)
           << "% of the step's " << llvm::format("%.4g", f.remat->baselineCost);
      if (f.remat->budgetBytes)
        os << ", budget " << bytesText(f.remat->budgetBytes);
      os << "</div>\n";
    }
    if (f.symbolic) {
      // Sizes known at run time: say at which point the picture is drawn
      // and what the plan gives at the others.
      auto values = [](const ReportPoint &p) {
        std::string text;
        for (const auto &[name, value] : p.values)
          text +=
              (text.empty() ? "" : ", ") + name + " = " + std::to_string(value);
        return text.empty() ? std::string("no symbols") : text;
      };
      const ReportPoint &first = f.symbolic->points.front();
      os << "<div class=\"summary\">sizes known at run time ("
         << escapeHtml(f.symbolic->mode) << " plan"
         << (f.symbolic->mode == "symbolic"
                 ? ", " + escapeHtml(f.symbolic->algorithm)
                 : std::string())
         << "); drawn at the " << escapeHtml(first.label) << " point "
         << escapeHtml(values(first)) << "</div>\n";
      for (const ReportPoint &p :
           llvm::ArrayRef(f.symbolic->points).drop_front())
        os << "<div class=\"summary\">at " << escapeHtml(values(p))
           << ": arena " << bytesText(p.arenaBytes) << ", lower bound "
           << bytesText(p.lowerBoundBytes) << ", arena/LB "
           << llvm::format("%.4f", p.lowerBoundBytes ? double(p.arenaBytes) /
                                                           p.lowerBoundBytes
                                                     : 1.0)
           << "</div>\n";
    }
    for (const auto &[name, reason] : f.heapBuffers)
      os << "<div class=\"summary\">left on the heap: " << escapeHtml(name)
         << ": " << escapeHtml(reason) << "</div>\n";
    if (f.buffers.empty()) {
      os << "<p>nothing planned in this function</p></section>\n";
      continue;
    }
    os << "<div class=\"help\">wheel: zoom in time (shift+wheel: in bytes); "
          "drag: pan; double-click or <button data-reset=\""
       << k
       << "\">reset</button>; click a buffer to select it (its producer and "
          "uses are marked)</div>\n"
       << "<canvas class=\"plot\" data-fn=\"" << k
       << "\" width=\"1100\" height=\"440\"></canvas>\n"
       << "<details><summary>table of the " << f.buffers.size()
       << " buffers (sortable; click a row to select it)</summary>"
          "<div class=\"tablewrap\"><table class=\"bufs\" data-fn=\""
       << k << "\"></table></div></details>\n</section>\n";
  }
  // The data, as JSON: '<' never appears raw, so no string can close the
  // script element.
  std::string data;
  llvm::raw_string_ostream(data) << pageData(functions);
  os << "<script type=\"application/json\" id=\"memplan-data\">";
  for (char c : data) {
    if (c == '<')
      os << "\\u003c";
    else
      os << c;
  }
  os << "</script>\n" << kScript << "</body></html>\n";
  return llvm::Error::success();
}
