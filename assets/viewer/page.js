// page.js is what the built-in viewer and the Chrome side panel share
// around the renderer: the header's state and connection, the notice that
// replaces the log when there is nothing to show, and the message box. Both
// pages load this file (the extension gets it copied in when it is built).
// Their markup has the same ids: state, conn, conn-text, notice, tab,
// composer, target, message, send, sent.

import { agentName } from './render.js';

const $ = (id) => document.getElementById(id);

/** showState shows the agent's state in the header pill. */
export function showState(state, reason) {
  const p = $('state');
  p.hidden = !state;
  p.className = 'pill ' + (state || '');
  p.textContent = state === 'needs_input' ? 'needs input' : state || '';
  p.title = reason || '';
}

/** setConn shows the connection: 'live', 'retry' (reconnecting) or ''. */
export function setConn(state) {
  $('conn').className = 'conn ' + state;
  $('conn').title = { live: 'live', retry: 'reconnecting…' }[state] || 'not connected';
  $('conn-text').hidden = state !== 'retry';
  document.body.dataset.conn = state;
}

/**
 * notice replaces the log with a message: an optional title (also kept in
 * data-state, for tests and styles), a text, and a command to run or a
 * button ({label, onClick}) to press.
 */
export function notice({ title = '', text, command = '', button = null }) {
  const n = $('notice');
  n.replaceChildren();
  if (title) {
    const t = document.createElement('strong');
    t.textContent = title;
    n.appendChild(t);
  }
  n.appendChild(document.createTextNode(text));
  if (command) {
    const c = document.createElement('code');
    c.textContent = command;
    n.appendChild(c);
  }
  if (button) {
    const b = document.createElement('button');
    b.type = 'button';
    b.id = 'notice-action';
    b.textContent = button.label;
    b.addEventListener('click', () => {
      b.disabled = true;
      Promise.resolve(button.onClick()).finally(() => (b.disabled = false));
    });
    n.appendChild(b);
  }
  n.dataset.state = title || text;
  n.hidden = false;
}

/**
 * createBrowser runs the header's browser pill (#browser): it says when
 * the workspace's browse server is live (set, from the workspace list's
 * `browser`), and once there are browser rows, clicking it folds them
 * away or back (renderer.fold).
 */
export function createBrowser(renderer) {
  const pill = $('browser');
  let live = false;
  let seen = false; // the view holds browser rows
  let folded = false;

  function draw() {
    pill.hidden = !live && !seen;
    pill.className = 'pill browser' + (live ? ' live' : '') + (folded ? ' folded' : '');
    pill.textContent = 'browser';
    pill.title = (live ? "gstack's browser is live: its actions are in this stream. " : '') +
      (folded ? 'Click to show the browser\'s actions' : 'Click to fold the browser\'s actions away');
    pill.dataset.live = String(live);
  }

  pill.addEventListener('click', () => {
    folded = !folded;
    renderer.fold(folded);
    draw();
  });

  return {
    /** set says whether the workspace's browse server is live now. */
    set(on) {
      live = Boolean(on);
      draw();
    },
    /** saw hears every event: a browser row makes the pill a fold switch. */
    saw(e) {
      if (e.type === 'browse' && !seen) {
        seen = true;
        draw();
      }
    },
    /** reset forgets, for another workspace. */
    reset() {
      live = false;
      seen = false;
      draw();
    },
  };
}

// urgency orders states: the workspace shows its most urgent session's.
const urgency = { needs_input: 4, error: 3, working: 2, idle: 1 };

/** tabLabel names a session: its title, else its agent and short id; then its agent. */
export function tabLabel(s) {
  const agent = s.agent_label || agentName(s.agent);
  const title = (s.title || '').trim() || (s.session_id || '').slice(0, 8);
  return title + ' · ' + agent;
}

/**
 * createTabs keeps a workspace's sessions (Conductor's chat tabs): it
 * labels each event with its tab once there is more than one, runs the
 * tab picker (#tab) that narrows the view, says in the message box
 * (#target) which tab a message will reach, and shows the most urgent
 * session's state in the header (or the picked tab's). Sessions come from
 * GET /api/workspaces (sessions[]) and from the events themselves
 * (session_id, agent), so a tab the list does not know yet still counts.
 */
export function createTabs(renderer) {
  let listed = []; // the API's sessions, active first
  const seen = new Map(); // session id → {session_id, agent} seen in the stream
  const states = new Map(); // session id → {state, reason}
  const blocked = new Map(); // session id → why messages cannot reach it
  const listedBlocks = new Set(); // sessions whose block the bridge's list gave (messages_blocked)
  let picked = '';
  let base = { state: '', reason: '' }; // the workspace's own, from the API
  let drawn = ''; // the picker's options as last drawn

  const all = () => {
    const out = [...listed];
    for (const s of seen.values()) if (!out.some((x) => x.session_id === s.session_id)) out.push(s);
    return out;
  };
  const find = (id) => all().find((s) => s.session_id === id);
  const many = () => all().length > 1;

  function target() {
    if (picked) return picked;
    const list = all();
    const active = list.find((s) => s.active) || list[0];
    return active ? active.session_id : '';
  }

  function showTarget() {
    const t = $('target');
    const sid = target();
    const s = find(sid);
    const why = blocked.get(sid);
    $('send').disabled = Boolean(why);
    t.hidden = !many() && !why;
    t.classList.toggle('blocked', Boolean(why));
    t.dataset.session = sid;
    if (why) {
      t.textContent = 'Messages cannot reach ' + (s ? tabLabel(s) : 'this session') + ': ' + why;
    } else {
      t.textContent = s ? 'To: ' + tabLabel(s) + (picked ? '' : ' (active tab)') : '';
    }
    // Short enough for a 300 px panel; the title says Shift+Enter.
    $('message').placeholder = 'Message ' + (s ? s.agent_label || agentName(s.agent) : 'Claude') + '… (Enter sends)';
  }

  function showHeaderState() {
    if (picked) {
      const st = states.get(picked) || {};
      showState(st.state || (find(picked) || {}).status || '', st.reason);
      return;
    }
    let best = base;
    for (const st of states.values()) {
      if ((urgency[st.state] || 0) > (urgency[best.state] || 0)) best = st;
    }
    showState(best.state, best.reason);
  }

  function draw() {
    const sel = $('tab');
    const list = all();
    sel.hidden = list.length < 2;
    const opts = [['', 'All tabs (' + list.length + ')']].concat(list.map((s) => [s.session_id, tabLabel(s) +
      (s.status ? ' — ' + s.status.replace(/_/g, ' ') : '')]));
    const key = JSON.stringify(opts);
    if (key !== drawn) {
      // Only when something changed: a list being looked at stays open.
      drawn = key;
      sel.replaceChildren(...opts.map(([v, text]) => {
        const o = document.createElement('option');
        o.value = v;
        o.textContent = text;
        return o;
      }));
    }
    if (picked && !list.some((s) => s.session_id === picked)) picked = '';
    sel.value = picked;
    renderer.relabel((sid) => {
      if (!many()) return '';
      const s = find(sid);
      return s ? tabLabel(s) : '';
    });
    renderer.narrow(picked);
    showTarget();
    showHeaderState();
  }

  $('tab').addEventListener('change', (ev) => {
    picked = ev.target.value;
    draw();
  });

  return {
    /** setSessions takes the workspace from the API: its sessions and state. */
    setSessions(w) {
      listed = Array.isArray(w.sessions) ? w.sessions : [];
      base = { state: w.status || '', reason: w.reason || '' };
      // What a message would meet now, said before Send: the bridge's
      // list names it (no transcript yet, an agent with no route).
      for (const s of listed) {
        if (s.messages_blocked) {
          blocked.set(s.session_id, s.messages_blocked);
          listedBlocks.add(s.session_id);
        } else if (listedBlocks.delete(s.session_id)) {
          blocked.delete(s.session_id);
        }
      }
      for (const s of listed) {
        if (s.status && !states.has(s.session_id)) states.set(s.session_id, { state: s.status, reason: s.reason });
      }
      draw();
    },
    /** saw hears every event: a new session, a session's state. */
    saw(e) {
      const sid = e.session_id;
      if (!sid) {
        if (e.type === 'status') {
          base = { state: e.state, reason: e.reason };
          showHeaderState();
        }
        return;
      }
      let changed = false;
      if (!listed.some((s) => s.session_id === sid) && !seen.has(sid)) {
        seen.set(sid, { session_id: sid, agent: e.agent || '' });
        changed = true;
      }
      if (e.type === 'status') {
        states.set(sid, { state: e.state, reason: e.reason });
        showHeaderState();
        // A refusal can be for now only (a busy Codex session takes
        // messages again once idle): the agent moved on, so try again.
        if (blocked.delete(sid)) showTarget();
      }
      if (changed) draw();
    },
    /** target is the session a message goes to: the picked tab, else the active one. */
    target,
    /** label names a session for the list of sent messages ("" with one tab). */
    label: (sid) => (many() && find(sid) ? tabLabel(find(sid)) : ''),
    /** block remembers that a session cannot take messages, and why. */
    block(sid, why) {
      blocked.set(sid, why);
      showTarget();
    },
    /** reset forgets everything, for another workspace. */
    reset() {
      listed = [];
      seen.clear();
      states.clear();
      blocked.clear();
      listedBlocks.clear();
      picked = '';
      base = { state: '', reason: '' };
      draw();
    },
  };
}

/**
 * createComposer runs the message box: Enter sends (Shift+Enter is a new
 * line), each message is listed with its state until the agent has it.
 * send(text) posts a message and resolves to the bridge's {id, status};
 * list() resolves to the workspace's messages; onError(err) hears what
 * went wrong (it returns true when it has dealt with it); label() names
 * the tab a message went to ("" when there is one tab).
 */
export function createComposer({ send, list, onError, label = () => '' }) {
  const sent = new Map(); // message id → <li>
  const box = $('message');

  function mark(id, state) {
    const li = sent.get(id);
    if (!li) return;
    li.className = state;
    li.firstChild.textContent = state;
  }

  $('composer').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const text = box.value.trim();
    if (!text) return;
    $('send').disabled = true;
    try {
      const res = await send(text);
      const li = document.createElement('li');
      li.className = res.status;
      li.dataset.id = res.id;
      const st = document.createElement('span');
      st.className = 'state';
      st.textContent = res.status;
      li.append(st);
      const to = label();
      if (to) {
        const t = document.createElement('span');
        t.className = 'to';
        t.textContent = '→ ' + to + ' ';
        li.append(t);
      }
      li.append(document.createTextNode(text));
      $('sent').prepend(li);
      sent.set(res.id, li);
      box.value = '';
    } catch (err) {
      if (!onError(err)) {
        box.setCustomValidity(err.message);
        box.reportValidity();
        setTimeout(() => box.setCustomValidity(''), 3000);
      }
    } finally {
      // Still off when the tab it went to cannot take messages (createTabs).
      $('send').disabled = $('target').classList.contains('blocked');
    }
  });

  box.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      $('composer').requestSubmit();
    }
  });

  return {
    /** mark sets a message's state (a user event confirms it at once). */
    mark,
    /** clear forgets the list, for another workspace. */
    clear() {
      sent.clear();
      $('sent').replaceChildren();
    },
    /** poll asks for the states of the messages Claude does not have yet. */
    async poll() {
      const pending = [...sent.values()].some((li) => li.className === 'queued' || li.className === 'delivered');
      if (!pending) return;
      // The wire names a message's state `status` (inject.Message).
      for (const m of await list()) mark(m.id, m.status || m.state);
    },
  };
}
