// usage.js draws the usage page: what every turn cost per day over the
// last 30 days, stacked by workspace, and a table below; the current
// 5-hour block and the plan limits an agent recorded above.
//
// Like the viewer it signs in with the session cookie a one-time link set
// (the menu bar's "Today's cost" opens one with ?to=usage), and holds the
// page secret the link hands over in memory only (session.js); its
// Sessions link carries this run's page key to the viewer. It draws with
// SVG and CSS of its own: no library, nothing fetched from anywhere else.

import { el } from './render.js';
import { createSession, SignedOut } from './session.js';

const $ = (id) => document.getElementById(id);
const SVG = 'http://www.w3.org/2000/svg';
const DAYS = 30;
const W = 300; // the chart's viewBox
const H = 120;
const COLOURS = 7; // workspaces with a colour of their own; the rest are "other"

const session = createSession();

async function api(path) {
  const resp = await session.call(path);
  if (resp.status === 401) throw new SignedOut();
  const data = await resp.json().catch(() => ({}));
  if (!resp.ok) throw new Error(data.error || resp.statusText);
  return data;
}

/** localDay is a Date's calendar day where the browser is, YYYY-MM-DD. */
function localDay(d) {
  const p = (n) => String(n).padStart(2, '0');
  return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate());
}

/** lastDays lists the last n days, oldest first, ending today. */
export function lastDays(n, now = new Date()) {
  const out = [];
  for (let i = n - 1; i >= 0; i--) {
    out.push(localDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - i)));
  }
  return out;
}

function money(usd, known) {
  if (known) return '$' + usd.toFixed(2);
  if (!usd) return '?';
  return '≈$' + usd.toFixed(2);
}

function tokens(n) {
  if (n >= 1e6) return (n / 1e6).toFixed(1) + 'M';
  if (n >= 1e4) return Math.round(n / 1e3) + 'k';
  return String(n);
}

function shortName(path) {
  const parts = (path || '').split('/').filter(Boolean);
  return parts.length ? parts[parts.length - 1] : path || '(unknown)';
}

function notice(text, command) {
  $('usage').hidden = true;
  const n = $('notice');
  n.replaceChildren(document.createTextNode(text));
  if (command) n.appendChild(el('code', '', command));
  n.hidden = false;
}

/** colours gives each workspace its colour class, the costliest first. */
function colours(rows) {
  const cost = new Map();
  for (const r of rows) {
    for (const p of r.workspaces || []) cost.set(p.workspace, (cost.get(p.workspace) || 0) + p.cost_usd);
  }
  const ranked = [...cost.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const of = new Map();
  ranked.forEach(([ws], i) => of.set(ws, i < COLOURS ? i : COLOURS));
  return { of, ranked };
}

function drawChart(rep, days) {
  const svg = $('chart');
  svg.replaceChildren();
  const byDay = new Map(rep.rows.map((r) => [r.key, r]));
  const max = Math.max(0, ...rep.rows.map((r) => r.cost_usd));
  const { of, ranked } = colours(rep.rows);
  const slot = W / days.length;
  days.forEach((day, i) => {
    const r = byDay.get(day);
    const g = document.createElementNS(SVG, 'g');
    g.dataset.day = day;
    g.dataset.cost = r ? r.cost_usd : 0;
    const title = document.createElementNS(SVG, 'title');
    title.textContent = day + ': ' + (r ? money(r.cost_usd, r.cost_known) + ', ' + tokens(r.total_tokens) + ' tokens' : 'nothing');
    g.appendChild(title);
    const hit = document.createElementNS(SVG, 'rect'); // the whole slot shows the tooltip
    hit.setAttribute('class', 'slot');
    hit.setAttribute('x', i * slot);
    hit.setAttribute('y', 0);
    hit.setAttribute('width', slot);
    hit.setAttribute('height', H);
    g.appendChild(hit);
    // Stack the day's workspaces, the "other" ones merged into one segment.
    const parts = new Map();
    for (const p of (r && r.workspaces) || []) {
      const c = of.get(p.workspace);
      const key = c === COLOURS ? '(other)' : p.workspace;
      parts.set(key, { c, cost: ((parts.get(key) || {}).cost || 0) + p.cost_usd });
    }
    let y = H;
    for (const [ws, p] of [...parts.entries()].sort((a, b) => a[1].c - b[1].c)) {
      if (max <= 0 || p.cost <= 0) continue;
      const h = (p.cost / max) * H;
      y -= h;
      const rect = document.createElementNS(SVG, 'rect');
      rect.setAttribute('class', 'bar c' + p.c);
      rect.setAttribute('x', i * slot + slot * 0.1);
      rect.setAttribute('y', y);
      rect.setAttribute('width', slot * 0.8);
      rect.setAttribute('height', h);
      rect.dataset.workspace = ws;
      rect.dataset.cost = p.cost;
      g.appendChild(rect);
    }
    svg.appendChild(g);
  });
  $('axis-from').textContent = days[0].slice(5);
  $('axis-max').textContent = max > 0 ? 'max $' + max.toFixed(2) + '/day' : 'no cost yet';
  $('axis-to').textContent = 'today';
  const legend = $('legend');
  legend.replaceChildren();
  let other = 0;
  ranked.forEach(([ws, usd], i) => {
    if (i >= COLOURS) {
      other += usd;
      return;
    }
    const li = el('li');
    li.title = ws;
    li.append(el('span', 'swatch c' + i), el('span', 'name', shortName(ws) + ' $' + usd.toFixed(2)));
    legend.appendChild(li);
  });
  if (other > 0) {
    const li = el('li');
    li.append(el('span', 'swatch c' + COLOURS), el('span', 'name', 'other $' + other.toFixed(2)));
    legend.appendChild(li);
  }
}

function costCell(r) {
  const td = el('td', '', money(r.cost_usd, r.cost_known));
  if (!r.cost_known) {
    td.className = 'unknown';
    td.title = 'no price for ' + (r.unpriced_models || []).join(', ') + ': the figure counts the priced turns only';
  }
  return td;
}

function drawTable(rep) {
  const body = $('days').tBodies[0];
  body.replaceChildren();
  for (const r of [...rep.rows].reverse()) {
    const tr = el('tr');
    tr.dataset.day = r.key;
    tr.append(el('td', '', r.key), costCell(r), el('td', '', tokens(r.total_tokens)));
    body.appendChild(tr);
  }
  const foot = $('days').tFoot;
  const tr = el('tr');
  tr.append(el('td', '', DAYS + ' days'), costCell(rep.total), el('td', '', tokens(rep.total.total_tokens)));
  foot.replaceChildren(tr);
  $('total').textContent = money(rep.total.cost_usd, rep.total.cost_known) + ' in ' + DAYS + ' days';
}

function drawNow(rep) {
  const ul = $('now');
  ul.replaceChildren();
  const agent = (a) => ({ claude: 'Claude', codex: 'Codex' })[a] || a;
  for (const b of rep.current_blocks || []) {
    const left = Math.round((b.left_seconds || 0) / 60);
    const since = new Date(b.start).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    const li = el('li', '', agent(b.agent) + ' 5-hour block since ' + since + ': ' + money(b.cost_usd, b.cost_known) +
      ', ' + tokens(b.total_tokens) + ' tokens, ' + Math.floor(left / 60) + ' h ' + (left % 60) + ' min left');
    li.dataset.block = b.agent;
    ul.appendChild(li);
  }
  for (const l of rep.limits || []) {
    let text = agent(l.agent) + ' plan, ' + l.name;
    if (l.window_minutes) text += ' (' + Math.round(l.window_minutes / 60) + ' h window)';
    text += ': ' + Math.round(l.used_percent) + '% used';
    if (l.resets_at) text += ', resets ' + new Date(l.resets_at).toLocaleString([], { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    const li = el('li', '', text);
    li.dataset.limit = l.agent + '/' + l.name;
    ul.appendChild(li);
  }
}

async function refresh() {
  const days = lastDays(DAYS);
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone || '';
  try {
    await session.refresh(); // keeps the cookie fresh
    document.querySelector('a.back').href = '/' + session.carry();
    const base = '/api/usage?by=day&since=' + days[0] + '&until=' + days[days.length - 1];
    // A zone the bridge's system does not know: its own zone is the next best.
    const rep = await api(base + '&tz=' + encodeURIComponent(tz)).catch((err) => {
      if (err instanceof SignedOut || !tz) throw err;
      return api(base);
    });
    $('notice').hidden = true;
    $('usage').hidden = false;
    $('scope').hidden = rep.scope !== 'paired';
    drawNow(rep);
    drawChart(rep, days);
    drawTable(rep);
    document.body.dataset.loaded = String(Date.now());
  } catch (err) {
    if (err instanceof SignedOut) {
      notice('This page is not signed in (or its session ended). Open it again from the menu bar, or run:', 'conductor-bridge open --usage');
    } else {
      notice('Could not read the usage: ' + err.message);
    }
  }
}

refresh();
setInterval(refresh, 60_000);
