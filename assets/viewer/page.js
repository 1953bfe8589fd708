// page.js is what the built-in viewer and the Chrome side panel share
// around the renderer: the header's state and connection, the notice that
// replaces the log when there is nothing to show, and the message box. Both
// pages load this file (the extension gets it copied in when it is built).
// Their markup has the same ids: state, conn, conn-text, notice, composer,
// message, send, sent.

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
 * data-state, for tests and styles), a text, and a command to run.
 */
export function notice({ title = '', text, command = '' }) {
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
  n.dataset.state = title || text;
  n.hidden = false;
}

/**
 * createComposer runs the message box: Enter sends (Shift+Enter is a new
 * line), each message is listed with its state until Claude has it.
 * send(text) posts a message and resolves to the bridge's {id, status};
 * list() resolves to the workspace's messages; onError(err) hears what
 * went wrong (it returns true when it has dealt with it).
 */
export function createComposer({ send, list, onError }) {
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
      li.append(st, document.createTextNode(text));
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
      $('send').disabled = false;
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
      for (const m of await list()) mark(m.id, m.state);
    },
  };
}
