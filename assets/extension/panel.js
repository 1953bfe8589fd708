// panel.js is the Chrome side panel: it finds the bridge, follows the
// workspace paired with Chrome (every tab of it, or the one picked), and
// sends its agents messages. It renders with
// the built-in viewer's renderer (render.js, copied in when the extension
// is built), and talks to the bridge the way bridge/api/SIDEPANEL.md says:
// /health → POST /extension-token → POST /sse-session → EventSource on
// /session/stream, which switches by itself when the pairing changes.

import { createRenderer } from './render.js';
import { createComposer, createTabs, notice, setConn, showState } from './page.js';

const DEFAULT_PORT = 34568;
const TYPES = ['assistant', 'thinking', 'tool_use', 'tool_result', 'user', 'turn_complete',
  'status', 'session', 'pairing', 'gap'];
const $ = (id) => document.getElementById(id);

const panel = {
  port: DEFAULT_PORT,
  token: '',
  workspace: null, // id shown; "" when nothing is paired; null before the first session event
  source: null,
  timer: 0, // the pending reconnect or health check
  gen: 0, // connect attempts: a newer one makes older ones stop
  retry: 0, // failed attempts in a row, for the backoff
};

const renderer = createRenderer($('log'));
const tabs = createTabs(renderer);

const base = () => 'http://127.0.0.1:' + panel.port;

// --- what the panel shows --------------------------------------------------

function down() {
  closeStream();
  setConn('');
  $('composer').hidden = true;
  notice({ title: 'Start Conductor Bridge', text: 'It is not answering on 127.0.0.1:' + panel.port +
    '. Open it from Applications, or run:', command: 'conductor-bridge' });
  later(connect, 2000);
}

function unpaired() {
  $('workspace').textContent = 'Conductor Bridge';
  $('composer').hidden = true;
  showState('');
  notice({ title: 'Pair a workspace from the menu bar', text: 'Tick "Paired with Chrome" under a workspace, or run:',
    command: 'conductor-bridge pair <workspace>' });
}

async function paired(id) {
  $('notice').hidden = true;
  $('composer').hidden = false;
  $('workspace').textContent = id;
  await describe(id);
}

// describe fetches the workspace's name and its sessions (tabs).
async function describe(id) {
  try {
    const w = await api('/api/workspaces/' + encodeURIComponent(id));
    if (panel.workspace === id) {
      const name = w.display_name || w.name;
      $('workspace').textContent = (w.repo && w.repo !== name ? w.repo + ' / ' : '') + name;
      tabs.setSessions(w);
    }
  } catch {
    // The stream is what matters; the name can stay an id.
  }
}

// --- talking to the bridge -------------------------------------------------

async function api(path, { method = 'GET', body } = {}) {
  const headers = { Authorization: 'Bearer ' + panel.token };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(base() + path, {
    method, headers, cache: 'no-store',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw Object.assign(new Error(data.error || r.statusText), { status: r.status });
  return data;
}

function later(fn, ms) {
  clearTimeout(panel.timer);
  panel.timer = setTimeout(fn, ms);
}

function closeStream() {
  if (panel.source) {
    panel.source.close();
    panel.source = null;
  }
}

// backoff schedules another connect, waiting longer after each failure.
function backoff() {
  setConn('retry');
  later(connect, Math.min(5000, 500 * 2 ** panel.retry++));
}

// connect finds the bridge, gets a token and a cookie, and follows the
// paired workspace from where the panel left off. A newer call (the port
// changed, a send found the token stale) supersedes one still under way.
async function connect() {
  const gen = ++panel.gen;
  const stale = () => gen !== panel.gen;
  closeStream();
  try {
    const h = await fetch(base() + '/health', { cache: 'no-store' }).then((r) => r.json());
    if (h.service !== 'conductor-bridge') throw new Error('not a bridge');
  } catch {
    if (!stale()) down();
    return;
  }
  if (stale()) return;
  try {
    const r = await fetch(base() + '/extension-token', { method: 'POST' });
    if (stale()) return;
    if (r.status === 403) {
      setConn('');
      return notice({ title: 'This extension is not allowed', text: 'Start the bridge with:',
        command: 'conductor-bridge serve --allow-origin ' + location.origin });
    }
    if (!r.ok) return backoff();
    panel.token = (await r.json()).token;
    const s = await fetch(base() + '/sse-session', {
      method: 'POST', credentials: 'include', headers: { Authorization: 'Bearer ' + panel.token },
    });
    if (stale()) return;
    if (!s.ok) return backoff();
  } catch {
    if (!stale()) down();
    return;
  }
  let url = base() + '/session/stream';
  if (panel.workspace) url += '?after=' + encodeURIComponent(panel.workspace + ':' + renderer.lastId);
  const es = new EventSource(url, { withCredentials: true });
  panel.source = es;
  const onEvent = (m) => {
    if (panel.source !== es) return;
    let e;
    try {
      e = JSON.parse(m.data);
    } catch {
      return;
    }
    if (e.type === 'session' && e.reason === 'follow') {
      follow(e.workspace || '');
      return;
    }
    tabs.saw(e);
    renderer.add(e);
    if (e.type === 'user' && e.message_id) composer.mark(e.message_id, 'confirmed');
  };
  for (const t of TYPES) es.addEventListener(t, onEvent);
  es.onopen = () => {
    panel.retry = 0;
    setConn('live');
  };
  es.onerror = () => {
    if (panel.source !== es) return;
    setConn('retry');
    // EventSource retries a dropped connection by itself; whether the
    // bridge is there at all decides between "reconnecting" and "start it".
    later(async () => {
      if (panel.source !== es || es.readyState === EventSource.OPEN) return;
      try {
        await fetch(base() + '/health', { cache: 'no-store' });
        if (es.readyState === EventSource.CLOSED) backoff(); // e.g. the token was rotated
      } catch {
        down();
      }
    }, es.readyState === EventSource.CLOSED ? 300 : 1500);
  };
}

// follow shows the workspace the bridge now follows: another one starts a
// fresh view; the same one (a reconnect) resumes where it was.
function follow(id) {
  if (id !== panel.workspace) {
    panel.workspace = id;
    renderer.reset();
    tabs.reset();
    composer.clear();
  }
  if (id === '') unpaired();
  else paired(id);
}

// --- messages ----------------------------------------------------------------

// A message goes to the tab the box names: the picked one, else the
// active one. A 409 says that tab cannot take messages (an agent with no
// route yet): the box says so for it from then on.
const composer = createComposer({
  send: (text) => {
    const to = tabs.target();
    return api('/workspace/' + encodeURIComponent(panel.workspace) + '/session/messages',
      { method: 'POST', body: { message: text, session_id: to || undefined } })
      .catch((err) => { throw Object.assign(err, { session: to }); });
  },
  list: async () => (await api('/workspace/' + encodeURIComponent(panel.workspace) + '/session/messages')).messages,
  label: () => tabs.label(tabs.target()),
  onError: (err) => {
    if (err.status === 409) {
      tabs.block(err.session || '', err.message);
      return true;
    }
    if (err.status === 401) connect(); // the token was rotated: sign in again
    return false;
  },
});

// --- the port ------------------------------------------------------------------

$('port').addEventListener('change', () => {
  const p = Number($('port').value);
  if (!Number.isInteger(p) || p < 1 || p > 65535) return;
  panel.port = p;
  chrome.storage?.local.set({ port: p });
  panel.workspace = null;
  renderer.reset();
  tabs.reset();
  connect();
});

async function start() {
  const fromURL = Number(new URLSearchParams(location.search).get('port'));
  const stored = (await chrome.storage?.local.get('port'))?.port;
  panel.port = fromURL || stored || DEFAULT_PORT;
  $('port').value = panel.port;
  setInterval(() => (panel.workspace ? composer.poll() : Promise.resolve()).catch(() => {}), 1000);
  // Tabs come and go, and change their titles and states.
  setInterval(() => panel.workspace && describe(panel.workspace), 5000);
  connect();
}

start();
