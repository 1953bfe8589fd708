// panel.js is the Chrome side panel: it finds the bridge, follows the
// workspace paired with Chrome (every tab of it, or the one picked), and
// sends its agents messages. It renders with
// the built-in viewer's renderer (render.js, copied in when the extension
// is built), and talks to the bridge the way bridge/api/SIDEPANEL.md says,
// except for how it signs in: the port and the credential come from the
// bridge's native messaging host (`conductor-bridge native-host`, started by
// Chrome as this user), which hands them over only after checking that the
// socket listening on that port is this user's. Nothing that merely answers
// on 127.0.0.1 is trusted, not even a /health that says conductor-bridge.
// Then: POST /sse-session → EventSource on /session/stream, which switches
// by itself when the pairing changes. Whenever a request or the stream
// fails, the panel forgets the port and the credential at once and asks the
// host again before it sends anything: the bridge may have restarted on
// another port, or rotated its token, or be gone, with another user's
// program listening on its port by now. Nothing is sent to a port the host
// has not vouched for since the last failure.

import { createRenderer } from './render.js';
import { createBrowser, createComposer, createTabs, notice, setConn, showState } from './page.js';

const HOST = 'com.conductor_bridge.host'; // bridge/nativehost.HostName
const TYPES = ['assistant', 'thinking', 'tool_use', 'tool_result', 'user', 'turn_complete',
  'status', 'session', 'pairing', 'gap', 'browse'];
const $ = (id) => document.getElementById(id);

const panel = {
  port: 0, // where the host said the bridge listens; 0 until it has
  token: '',
  workspace: null, // id shown; "" when nothing is paired; null before the first session event
  source: null,
  timer: 0, // the pending reconnect
  gen: 0, // connect attempts: a newer one makes older ones stop
  retry: 0, // failed attempts in a row, for the backoff
};

const renderer = createRenderer($('log'));
const tabs = createTabs(renderer);
const browser = createBrowser(renderer);

const base = () => 'http://127.0.0.1:' + panel.port;

// --- what the panel shows --------------------------------------------------

// trouble shows why the panel cannot sign in, from the host's answer, and
// asks again later: the person may start the bridge or install the host
// without touching the panel.
function trouble(r) {
  closeStream();
  setConn('');
  $('composer').hidden = true;
  $('foot').hidden = true;
  const titles = {
    not_running: 'Start Conductor Bridge',
    no_host: 'Install the side panel\'s helper',
    not_yours: 'Another user holds the bridge\'s port',
    not_allowed: 'This extension is not allowed',
  };
  if (r.code === 'no_host') {
    notice({ title: titles.no_host, text: 'Chrome cannot start Conductor Bridge\'s native host (' + r.error + '). Run:',
      command: 'conductor-bridge extension install' });
  } else if (r.code === 'not_running') {
    // The app on a Mac; elsewhere the command (or its login item).
    const mac = /Mac/.test(navigator.userAgentData ? navigator.userAgentData.platform : navigator.platform);
    notice({ title: titles.not_running, text: mac ? 'It is not running. Open it from Applications, or run:' : 'It is not running. Run:',
      command: 'conductor-bridge' });
  } else {
    notice({ title: titles[r.code] || 'Cannot reach Conductor Bridge', text: r.error });
  }
  later(connect, Math.min(5000, 1000 * 2 ** panel.retry++));
}

function unpaired() {
  $('workspace').textContent = 'Conductor Bridge';
  $('composer').hidden = true;
  showState('');
  offered = null;
  offer();
}

function pairFromMenu() {
  notice({ title: 'Pair a workspace from the menu bar', text: 'Tick "Paired with Chrome" under a workspace, or run:',
    command: 'conductor-bridge pair <workspace>' });
}

// offer asks the bridge, while nothing is paired, whether exactly one
// workspace's agent drives a browser through gstack, and offers to pair
// that one with a click (POST /api/browser-pairing; SIDEPANEL.md). The
// follow stream then switches to it by itself.
let offered = null; // the workspace id offered, "" for none, null before the first answer
async function offer() {
  let w = null;
  try {
    w = (await api('/api/browser-pairing')).workspace;
  } catch {
    w = null; // an older bridge, or a hiccup: the menu bar is the way
  }
  const id = w ? w.id : '';
  if (panel.workspace !== '' || id === offered) return;
  offered = id;
  if (!w) {
    pairFromMenu();
    return;
  }
  const name = w.display_name || w.name;
  notice({
    title: name + ' is driving this browser — pair?',
    text: 'Its agent drives this browser through gstack. Pair it to see what the agent thinks and does here, in one place.',
    button: {
      label: 'Pair ' + name,
      onClick: () => api('/api/browser-pairing', { method: 'POST', body: { workspace: w.id } }).catch((err) => {
        offered = null; // asked again within seconds
        notice({ title: 'Not paired', text: err.message });
      }),
    },
  });
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
      browser.set(w.browser);
    }
  } catch {
    // The stream is what matters; the name can stay an id.
  }
}

// --- talking to the bridge -------------------------------------------------

async function api(path, { method = 'GET', body } = {}) {
  if (!panel.token) throw Object.assign(new Error('not signed in'), { status: undefined });
  const headers = { Authorization: 'Bearer ' + panel.token };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let r;
  try {
    r = await fetch(base() + path, {
      method, headers, cache: 'no-store',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    forget(); // the bridge stopped answering: its port may be anyone's now
    throw Object.assign(err, { status: undefined });
  }
  const data = await r.json().catch(() => ({}));
  if (!r.ok) throw Object.assign(new Error(data.error || r.statusText), { status: r.status });
  return data;
}

// askHost asks the native host where the bridge is and for a credential:
// {port, token}, or {error, code}.
async function askHost() {
  try {
    const r = await chrome.runtime.sendNativeMessage(HOST, { type: 'connect' });
    if (r && (r.error || (r.port && r.token))) return r;
    return { error: 'the host gave no answer', code: 'no_host' };
  } catch (err) {
    return { error: err.message || String(err), code: 'no_host' };
  }
}

function later(fn, ms) {
  clearTimeout(panel.timer);
  panel.timer = setTimeout(fn, ms);
}

// forget drops the port's credential: nothing is sent until the host has
// looked at who listens there again (connect).
function forget() {
  panel.token = '';
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

// connect asks the host for the bridge's port and a credential, gets a
// cookie, and follows the paired workspace from where the panel left off.
// A newer call (a send found the token stale, the stream broke) supersedes
// one still under way.
async function connect() {
  const gen = ++panel.gen;
  const stale = () => gen !== panel.gen;
  closeStream();
  const r = await askHost();
  if (stale()) return;
  if (r.error) return trouble(r);
  // The same bridge on another port still resumes where the panel was:
  // event ids survive a restart.
  panel.port = r.port;
  panel.token = r.token;
  $('where').textContent = 'Conductor Bridge on 127.0.0.1:' + panel.port;
  $('foot').hidden = false;
  try {
    const s = await fetch(base() + '/sse-session', {
      method: 'POST', credentials: 'include', headers: { Authorization: 'Bearer ' + panel.token },
    });
    if (stale()) return;
    if (!s.ok) return backoff(); // e.g. the token was rotated since the host read it
  } catch {
    if (!stale()) backoff(); // it stopped since the host looked
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
    browser.saw(e);
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
    // Not EventSource's own retry, which would carry the cookie back to
    // the same port whoever holds it now: the host looks first.
    forget();
    closeStream();
    backoff();
  };
}

// follow shows the workspace the bridge now follows: another one starts a
// fresh view; the same one (a reconnect) resumes where it was.
function follow(id) {
  if (id !== panel.workspace) {
    panel.workspace = id;
    renderer.reset();
    tabs.reset();
    browser.reset();
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
    if (err.status === 401 || err.status === undefined) connect(); // rotated token, or the bridge moved: ask the host again
    return false;
  },
});

// The usage page opens in a tab, signed in by a one-time link the native
// host asks the bridge for (a page of the extension cannot mint one).
$('usage-link').addEventListener('click', async (ev) => {
  ev.preventDefault();
  let r;
  try {
    r = await chrome.runtime.sendNativeMessage(HOST, { type: 'usage' });
  } catch (err) {
    r = { error: err.message || String(err) };
  }
  if (r && r.url) {
    chrome.tabs.create({ url: r.url });
    return;
  }
  $('where').textContent = 'No usage page: ' + ((r && r.error) || 'the host gave no answer') + ' (run: conductor-bridge open --usage)';
});

function start() {
  setInterval(() => (panel.workspace ? composer.poll() : Promise.resolve()).catch(() => {}), 1000);
  // Tabs come and go, and change their titles and states; a browser
  // comes and goes.
  setInterval(() => panel.workspace && describe(panel.workspace), 5000);
  // While nothing is paired, a workspace may start driving this browser.
  setInterval(() => panel.workspace === '' && offer(), 3000);
  connect();
}

start();
