// viewer.js is the built-in session viewer: pick a paired workspace, watch
// its live stream (every tab of it, or one: the tab picker), send its agent
// a message.
//
// It signs in with the session cookie that a one-time link set (the page
// never sees a token) and the page secret the same link hands over, which
// only this page's memory keeps (session.js): a reloaded viewer is signed
// out until opened from a new link. It reconnects by itself, across a
// restart of the bridge too, resuming after the last event shown, and the
// renderer drops anything it has already drawn.

import { createRenderer } from './render.js';
import { createBrowser, createComposer, createTabs, notice, setConn, showState } from './page.js';
import { createSession, SignedOut } from './session.js';

const $ = (id) => document.getElementById(id);
const TYPES = ['assistant', 'thinking', 'tool_use', 'tool_result', 'user', 'turn_complete',
  'status', 'session', 'pairing', 'gap', 'browse'];

const session = createSession();

const view = {
  workspaces: [],
  current: '', // workspace id shown
  source: null, // the EventSource
  retry: 0, // consecutive failed connects
  pending: false, // a reconnect is scheduled
};

const renderer = createRenderer($('log'));
const tabs = createTabs(renderer);
const browser = createBrowser(renderer);

async function api(path, opts) {
  const resp = await session.call(path, opts);
  if (resp.status === 401) throw new SignedOut();
  const data = await resp.json().catch(() => ({}));
  if (!resp.ok) throw Object.assign(new Error(data.error || resp.statusText), { status: resp.status });
  return data;
}

function signedOut() {
  closeStream();
  setConn('');
  $('composer').hidden = true;
  $('workspace').hidden = true;
  $('usage-link').hidden = true;
  notice({ title: 'Not signed in', text: 'This viewer is not signed in (or its session ended). Open it again from the menu bar, or run:',
    command: 'conductor-bridge open' });
  // Told so while it holds its secret: the bridge may be restarting, or
  // someone else may have held its port meanwhile. Keep trying.
  if (session.resumable()) reconnectLater();
}

// refreshSession keeps the cookie fresh (and says whether it still works),
// and the page key current.
async function refreshSession() {
  await session.refresh();
  // The usage page, signed in with this run's page key (as its way back).
  $('usage-link').href = '/usage' + session.carry();
  $('usage-link').hidden = false;
}

// refreshList reloads the paired workspaces and keeps the choice valid.
async function refreshList() {
  const { workspaces } = await api('/api/workspaces');
  workspaces.sort((a, b) => Number(b.paired) - Number(a.paired) ||
    String(b.paired_at || '').localeCompare(String(a.paired_at || '')));
  view.workspaces = workspaces;
  const sel = $('workspace');
  const chosen = view.current || new URLSearchParams(location.search).get('ws') || '';
  sel.replaceChildren(...workspaces.map((w) => {
    const o = document.createElement('option');
    o.value = w.id;
    const name = w.display_name || w.name;
    o.textContent = (w.repo && w.repo !== name ? w.repo + ' / ' : '') + name + (w.branch && w.branch !== name ? ' · ' + w.branch : '');
    return o;
  }));
  if (workspaces.length === 0) {
    closeStream();
    view.current = '';
    sel.hidden = true;
    $('composer').hidden = true;
    showState('');
    notice({ text: 'No workspace is paired with Chrome. Pair one from the menu bar, or run:',
      command: 'conductor-bridge pair <workspace>' });
    return;
  }
  $('notice').hidden = true;
  sel.hidden = false;
  $('composer').hidden = false;
  const pick = workspaces.find((w) => w.id === chosen) || workspaces[0];
  sel.value = pick.id;
  if (pick.id !== view.current) {
    select(pick.id);
  }
  tabs.setSessions(pick);
  browser.set(pick.browser);
}

function select(id) {
  closeStream();
  view.current = id;
  composer.clear();
  renderer.reset();
  tabs.reset();
  browser.reset();
  const w = view.workspaces.find((x) => x.id === id);
  if (w) tabs.setSessions(w);
  history.replaceState(null, '', '/?ws=' + encodeURIComponent(id));
  connect();
}

function closeStream() {
  if (view.source) {
    view.source.close();
    view.source = null;
  }
}

// connect opens the stream after the last event shown. EventSource retries
// a dropped connection by itself (sending Last-Event-ID); when it gives up
// (an error status, e.g. while the bridge restarts) we start over here.
function connect() {
  closeStream();
  const id = view.current;
  if (!id) return;
  // EventSource sends no header: the page key goes in the query.
  const url = '/workspace/' + encodeURIComponent(id) + '/session/stream?after=' + renderer.lastId +
    '&pk=' + encodeURIComponent(session.key());
  const es = new EventSource(url, { withCredentials: true });
  view.source = es;
  const onEvent = (m) => {
    if (view.source !== es) return;
    let e;
    try {
      e = JSON.parse(m.data);
    } catch {
      return;
    }
    tabs.saw(e);
    browser.saw(e);
    renderer.add(e);
    if (e.type === 'user' && e.message_id) composer.mark(e.message_id, 'confirmed');
    if (e.type === 'pairing' && !e.paired) setTimeout(() => refreshList().catch(onFailure), 100);
  };
  for (const t of TYPES) es.addEventListener(t, onEvent);
  es.onopen = () => {
    view.retry = 0;
    setConn('live');
  };
  es.onerror = () => {
    if (view.source !== es) return;
    setConn('retry');
    if (es.readyState === EventSource.CLOSED) {
      view.source = null;
      reconnectLater();
    }
  };
}

function reconnectLater() {
  if (view.pending) return;
  view.pending = true;
  const delay = Math.min(5000, 500 * 2 ** view.retry++);
  setTimeout(async () => {
    view.pending = false;
    if (view.source) return;
    try {
      await refreshSession();
      await refreshList();
      if (!view.source) connect();
    } catch (err) {
      onFailure(err);
      if (!(err instanceof SignedOut)) reconnectLater();
    }
  }, delay);
}

function onFailure(err) {
  if (err instanceof SignedOut) {
    signedOut();
  } else {
    setConn('retry');
  }
}

// The composer sends to the workspace shown, with the page key, and to the
// tab the message box names (the picked one, else the active one). A 409
// says that tab cannot take messages: the box says so from then on.
const composer = createComposer({
  send: (text) => {
    const to = tabs.target();
    return api('/workspace/' + encodeURIComponent(view.current) + '/session/messages',
      { method: 'POST', body: { message: text, session_id: to || undefined } })
      .catch((err) => { throw Object.assign(err, { session: to }); });
  },
  list: async () => (await api('/workspace/' + encodeURIComponent(view.current) + '/session/messages')).messages,
  label: () => tabs.label(tabs.target()),
  onError: (err) => {
    if (err.status === 409) {
      tabs.block(err.session || '', err.message);
      return true;
    }
    if (!(err instanceof SignedOut)) return false;
    onFailure(err);
    return true;
  },
});

$('workspace').addEventListener('change', (ev) => select(ev.target.value));

async function start() {
  try {
    await refreshSession();
    await refreshList();
  } catch (err) {
    onFailure(err);
    if (!(err instanceof SignedOut)) reconnectLater();
    return;
  }
  setInterval(() => refreshList().catch(onFailure), 5000);
  setInterval(() => (view.current ? composer.poll() : Promise.resolve()).catch(onFailure), 1000);
  setInterval(() => refreshSession().catch(onFailure), 5 * 60 * 1000);
}

start();
