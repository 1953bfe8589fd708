// render.js draws a Conductor Bridge session stream into an element, the
// way a 300-px side panel shows it: Claude's text as chat bubbles, tool
// calls as compact badges with their result folded inside, a line at each
// turn's end. It is the one renderer: the built-in viewer and the Chrome
// side panel both load this file.
//
// A workspace can run several agent sessions (Conductor's chat tabs; a
// Claude and a Codex run side by side), interleaved in one stream. Every
// node keeps its event's session in data-session; relabel() puts each
// tab's name on its events (data-tab, drawn by the style sheet), and
// narrow() shows one tab only.
//
// The workspace's browser (gstack's browse server, `browse` events) gets
// rows of its own: a command's start and its end are one row, which says
// ok or the error and how long it took, and opens to the page's URL and
// the result; fold(true) hides them all. A browser row takes its place
// among the agent's rows by when it happened (see settle).
//
// Everything that comes from a transcript is set with textContent, never
// parsed as HTML: a tool's output can hold any markup at all.

const SVG = 'http://www.w3.org/2000/svg';

// One stroke path per tool family (24×24 grid).
const ICONS = {
  bash: 'M4 17l6-5-6-5M12 19h8',
  read: 'M1 12s4-8 11-8 11 8 11 8-4 8-11 8S1 12 1 12zM12 9a3 3 0 1 0 0 6 3 3 0 0 0 0-6z',
  edit: 'M17 3l4 4L7 21H3v-4L17 3z',
  write: 'M14 2H6a2 2 0 0 0-2 2v16a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2V8zM14 2v6h6M12 18v-6M9 15h6',
  grep: 'M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14zM21 21l-5-5',
  glob: 'M3 7a2 2 0 0 1 2-2h4l2 2h8a2 2 0 0 1 2 2v8a2 2 0 0 1-2 2H5a2 2 0 0 1-2-2z',
  task: 'M12 2a4 4 0 1 0 0 8 4 4 0 0 0 0-8zM4 22a8 8 0 0 1 16 0',
  web: 'M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zM2 12h20M12 2a15 15 0 0 1 0 20M12 2a15 15 0 0 0 0 20',
  other: 'M14.7 6.3a4 4 0 0 0-5.4 5.4L3 18l3 3 6.3-6.3a4 4 0 0 0 5.4-5.4l-2.5 2.5-2.5-.5-.5-2.5z',
};

const FAMILY = {
  Bash: 'bash', BashOutput: 'bash', KillShell: 'bash',
  Read: 'read', NotebookRead: 'read',
  Edit: 'edit', MultiEdit: 'edit', NotebookEdit: 'edit',
  Write: 'write',
  Grep: 'grep',
  Glob: 'glob', LS: 'glob',
  Task: 'task', Agent: 'task',
  WebFetch: 'web', WebSearch: 'web',
  // Codex's tools, so a Codex tab looks like a Claude one.
  shell: 'bash', exec_command: 'bash', local_shell: 'bash', write_stdin: 'bash',
  apply_patch: 'edit', web_search: 'web', view_image: 'read',
};

/** agentName is how a page names an agent: Claude, Codex, … */
export function agentName(agent) {
  return { '': 'Claude', claude: 'Claude', anthropic: 'Claude', codex: 'Codex', cursor: 'Cursor', acp: 'ACP' }[agent || ''] || agent;
}

/** iconFor returns the icon family of a tool name. */
export function iconFor(name) {
  return FAMILY[name] || 'other';
}

function icon(family) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', 'icon');
  svg.setAttribute('aria-hidden', 'true');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', ICONS[family]);
  svg.appendChild(path);
  return svg;
}

/** el makes an element of tag, with class cls and text when given. */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function cut(text, truncated) {
  return truncated ? text + ' …' : text;
}

/** compact formats a token count: 950, 12.3k, 1.2M. */
export function compact(n) {
  if (n < 1000) return String(n);
  if (n < 1e6) return (n / 1000).toFixed(n < 1e4 ? 1 : 0) + 'k';
  return (n / 1e6).toFixed(1) + 'M';
}

/**
 * costText is a turn's cost: "$0.0123", or "$?" when the bridge has no
 * price for its model (cost_known false, cost_usd null) — never a made-up
 * $0 — or "≈$x" when only part of it is priced.
 */
export function costText(e) {
  const known = e.cost_known !== false && e.cost_usd !== null;
  if (known) return '$' + (e.cost_usd || 0).toFixed(4);
  if (typeof e.cost_usd === 'number' && e.cost_usd > 0) return '≈$' + e.cost_usd.toFixed(4);
  return '$?';
}

/** costTitle explains an unknown cost (the tooltip of the turn line). */
export function costTitle(e) {
  if (e.cost_known !== false && e.cost_usd !== null) return '';
  return 'cost unknown: the bridge has no price for ' + (e.model || 'this model');
}

/** took says how long a browser command ran: "412 ms", "3.1 s". */
export function took(ms) {
  if (typeof ms !== 'number') return '';
  return ms < 1000 ? ms + ' ms' : (ms / 1000).toFixed(1) + ' s';
}

/** turnLine is the text of a turn's end: tokens, cost, duration, model. */
export function turnLine(e) {
  const parts = [
    compact(e.input_tokens || 0) + ' in',
    compact(e.output_tokens || 0) + ' out',
  ];
  const cache = (e.cache_read_input_tokens || 0) + (e.cache_creation_input_tokens || 0);
  if (cache) parts.push(compact(cache) + ' cache');
  if (e.reasoning_output_tokens) parts.push(compact(e.reasoning_output_tokens) + ' reasoning');
  let cost = costText(e);
  if (e.subagent_cost_usd > 0) cost += ' (incl. $' + e.subagent_cost_usd.toFixed(2) + ' subagents)';
  parts.push(cost);
  if (e.duration_ms) parts.push((e.duration_ms / 1000).toFixed(1) + 's');
  if (e.model) parts.push(e.model);
  return parts.join(' · ');
}

// systemLabel names a prompt the person did not type, by its opening tag.
function systemLabel(text) {
  const t = (text || '').trimStart();
  if (t.startsWith('<system_instruction')) return 'Conductor instructions';
  if (t.startsWith('<environment_context')) return 'environment context';
  if (t.startsWith('<user_instructions')) return 'user instructions';
  return 'system prompt';
}

/**
 * createRenderer returns a renderer that appends events to container.
 * add(event) returns false for an event already shown (same or older id),
 * so a stream replayed after a reconnect never shows anything twice.
 * onState, if given, hears every status change (working, idle,
 * needs_input) as onState(state, reason, event).
 */
export function createRenderer(container, { onState } = {}) {
  let last = 0;
  const tools = new Map(); // tool_use_id → badge element
  const running = new Map(); // browser command → its rows started and not ended yet, oldest first
  let labelOf = () => ''; // session id → its tab's label ("" for none)
  let only = ''; // the one session shown; "" shows every one

  // dress labels a node with its tab and hides it when another tab is picked.
  function dress(node) {
    const sid = node.dataset.session;
    if (sid === undefined) return;
    const label = sid ? labelOf(sid) : '';
    if (label) node.dataset.tab = label;
    else delete node.dataset.tab;
    node.hidden = Boolean(only && sid && sid !== only);
  }

  function place(node, e) {
    node.dataset.id = String(e.id);
    node.dataset.type = e.type;
    const ts = Date.parse(e.ts || '');
    if (ts) node.dataset.ts = String(ts);
    if (e.session_id) node.dataset.session = e.session_id;
    if (e.agent) node.dataset.agent = e.agent;
    if (e.sidechain) node.classList.add('sidechain');
    dress(node);
    const stick = container.scrollHeight - container.scrollTop - container.clientHeight < 40;
    container.appendChild(node);
    settle(node);
    if (stick) container.scrollTop = container.scrollHeight;
    return node;
  }

  // settle moves a row back before the rows that happened after it, when
  // a browser action is one of the two. The browser's entries and the
  // agent's transcript reach the bridge by different roads, the first
  // within milliseconds, the second often later: by arrival, a command's
  // row could come before the tool call that ran it. Each event's ts says
  // when it happened; the agent's own rows keep their order, and no row
  // moves past one more than 10 s younger or more than 50 rows back.
  function settle(node) {
    const t = Number(node.dataset.ts);
    if (!t) return;
    let before = node.previousElementSibling;
    for (let n = 0; before && n < 50; n++) {
      const bt = Number(before.dataset.ts);
      if (!bt || bt <= t || bt - t > 10000) break;
      if (node.dataset.type !== 'browse' && before.dataset.type !== 'browse') break;
      before = before.previousElementSibling;
    }
    const at = before ? before.nextElementSibling : container.firstElementChild;
    if (at !== node) container.insertBefore(node, at);
  }

  const draw = {
    assistant(e) {
      return el('div', 'bubble claude', cut(e.content, e.truncated));
    },
    user(e) {
      if (e.system) {
        // Conductor's <system_instruction>, Codex's <environment_context>:
        // the agent read them, the person did not write them.
        const d = el('details', 'system');
        d.appendChild(el('summary', '', systemLabel(e.content)));
        d.appendChild(el('div', 'text', cut(e.content, e.truncated)));
        return d;
      }
      const b = el('div', 'bubble you', cut(e.content, e.truncated));
      if (e.message_id) b.classList.add('injected');
      return b;
    },
    thinking(e) {
      const d = el('details', 'thinking');
      d.appendChild(el('summary', '', 'thinking'));
      d.appendChild(el('div', 'text', cut(e.content, e.truncated)));
      return d;
    },
    tool_use(e) {
      const family = iconFor(e.name);
      const d = el('details', 'tool');
      d.dataset.tool = family;
      const s = el('summary');
      s.appendChild(icon(family));
      s.appendChild(el('span', 'name', e.name));
      s.appendChild(el('span', 'input', cut(e.input, e.truncated_input)));
      d.appendChild(s);
      if (e.tool_use_id) tools.set(e.tool_use_id, d);
      return d;
    },
    tool_result(e) {
      const out = el('pre', 'result', cut(e.output, e.truncated_output));
      if (e.is_error) out.classList.add('error');
      out.dataset.id = String(e.id);
      const badge = e.tool_use_id && tools.get(e.tool_use_id);
      if (badge) {
        // Folded into its call: the badge opens to show it.
        badge.appendChild(out);
        badge.classList.add(e.is_error ? 'failed' : 'done');
        tools.delete(e.tool_use_id);
        return null;
      }
      const d = el('details', 'tool orphan');
      d.dataset.tool = iconFor(e.name);
      const s = el('summary');
      s.appendChild(icon(iconFor(e.name)));
      s.appendChild(el('span', 'name', (e.name || 'tool') + ' result'));
      d.appendChild(s);
      d.appendChild(out);
      return d;
    },
    turn_complete(e) {
      const d = el('div', 'turn', '✓ ' + turnLine(e));
      const why = costTitle(e);
      if (why) {
        d.title = why;
        d.classList.add('unknown-cost');
      }
      return d;
    },
    status(e) {
      if (onState) onState(e.state, e.reason, e);
      if (e.state !== 'needs_input') return null;
      return el('div', 'needs-input', agentName(e.agent) + ' needs your input' + (e.reason ? ' (' + e.reason.replace(/_/g, ' ') + ')' : ''));
    },
    session(e) {
      if (e.reason === 'follow') return null; // a follow stream's switch: the page shows it
      if (e.reason === 'end') return el('div', 'divider', 'session ended');
      return el('div', 'divider', 'new session');
    },
    pairing(e) {
      return el('div', 'divider', e.paired ? 'paired with Chrome' : 'unpaired from Chrome');
    },
    gap(e) {
      return el('div', 'divider', 'events ' + e.gapFrom + '–' + (e.availableFrom - 1) + ' are no longer kept');
    },
    browse(e) {
      switch (e.action) {
        case 'start': {
          const row = browseRow(e);
          row.classList.add('running');
          const key = e.command || '';
          if (!running.has(key)) running.set(key, []);
          running.get(key).push(row);
          return row;
        }
        case 'end': {
          // gstack runs a server's commands one at a time: the oldest
          // open row of the same command is the one this ends.
          const open = running.get(e.command || '');
          const row = open && open.shift();
          if (row) {
            endRow(row, e);
            return null;
          }
          const lone = browseRow(e); // its start was before the view began
          endRow(lone, e);
          return lone;
        }
        case 'navigation': {
          const row = browseRow(e);
          row.classList.add('navigation');
          return row;
        }
        case 'error': {
          const row = browseRow(e);
          endRow(row, e);
          return row;
        }
        case 'gap':
          return el('div', 'divider browse-gap', 'browser actions ' + e.gapFrom + '–' + (e.availableFrom - 1) + ' not shown');
      }
      return null;
    },
  };

  // browseRow is a browser action's row: the command (or where the page
  // went) and its arguments on one line, the page's URL inside.
  function browseRow(e) {
    const d = el('details', 'browse');
    const s = el('summary');
    s.appendChild(icon('web'));
    if (e.action === 'navigation') {
      s.appendChild(el('span', 'name', 'page'));
      s.appendChild(el('span', 'input', e.url || ''));
    } else {
      s.appendChild(el('span', 'name', e.command || e.action));
      s.appendChild(el('span', 'input', e.args || ''));
    }
    s.appendChild(el('span', 'took'));
    d.appendChild(s);
    if (e.url) d.appendChild(el('div', 'url', e.url));
    d.dataset.browseId = String(e.browse_id || '');
    return d;
  }

  // endRow says how a command ended: ok or its error, how long, and what
  // it returned; the page's URL is the one after it ran.
  function endRow(row, e) {
    row.dataset.endId = String(e.id);
    row.classList.remove('running');
    row.classList.add(e.ok ? 'done' : 'failed');
    row.querySelector('.took').textContent = e.ok ? took(e.duration_ms) : '✗ ' + (e.duration_ms !== undefined ? took(e.duration_ms) : 'error');
    if (e.url) {
      const u = row.querySelector('.url') || row.appendChild(el('div', 'url'));
      u.textContent = e.url;
    }
    if (e.error || e.result) {
      const out = el('pre', 'result', e.error || e.result);
      if (e.error) out.classList.add('error');
      row.appendChild(out);
    }
  }

  return {
    add(e) {
      const announce = e.type === 'session' && e.reason === 'follow';
      if (e.type !== 'gap' && !announce && e.id <= last) return false;
      if (e.type !== 'gap' && e.id > last) last = e.id;
      const f = draw[e.type];
      const node = f ? f(e) : null;
      if (node) place(node, e);
      return true;
    },
    /** lastId is the newest event shown: where to resume. */
    get lastId() {
      return last;
    },
    /** reset empties the view, for another workspace. */
    reset() {
      last = 0;
      tools.clear();
      running.clear();
      only = '';
      container.replaceChildren();
    },
    /** relabel names every event by its tab: fn(session id) → label or "". */
    relabel(fn) {
      labelOf = fn;
      for (const n of container.children) dress(n);
    },
    /** fold hides the browser's rows (true) or shows them again. */
    fold(on) {
      container.classList.toggle('browse-folded', Boolean(on));
    },
    /** narrow shows one session's events only ("" shows every session's). */
    narrow(sessionId) {
      only = sessionId || '';
      for (const n of container.children) dress(n);
    },
  };
}
