// session.js signs a page of the bridge in: the viewer and the usage page.
//
// A one-time link sets an HttpOnly cookie and hands the page its page
// secret in the URL fragment, which no server sees. The secret stays in
// this module's memory: never in storage, never in a request, and the
// address bar and history lose it at once. A reload therefore signs the
// page out, and only a new link (the menu bar, or `conductor-bridge open`)
// signs it in again: a page served on this origin by someone else, while
// the bridge was down, finds nothing to reuse, and the cookie the browser
// attaches to its requests opens nothing without a key.
//
// Every request of the page carries its page key: HMAC-SHA-256 of the
// bridge run's name, keyed with the page secret (the stream, which cannot
// send a header, in its query). The run's name changes whenever the bridge
// restarts, so a key (or cookie) seen by whoever held the port in between
// is dead, and an open page resumes with the new run's key
// (POST /api/session).

export class SignedOut extends Error {}

/** pageKey is the bridge's auth.Sessions page key, computed here. */
async function pageKey(secret, run) {
  const enc = new TextEncoder();
  const k = await crypto.subtle.importKey('raw', enc.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', k, enc.encode(run)));
  return 'pk.' + btoa(String.fromCharCode(...mac)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * createSession takes what the address's fragment carries — #ps= (a page
 * secret, from a link) or #pk= (a page key for this run only, from the
 * other page's link) — out of the address, and keeps it.
 */
export function createSession() {
  const frag = new URLSearchParams(location.hash.slice(1));
  const secret = frag.get('ps') || '';
  let key = secret ? '' : frag.get('pk') || '';
  let run = '';
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);

  const session = async (init) => {
    const resp = await fetch('/api/session', { credentials: 'same-origin', cache: 'no-store', ...init });
    return { resp, data: await resp.json().catch(() => ({})) };
  };

  /**
   * refresh keeps the cookie fresh. A page that holds its secret and is
   * told it is signed out (its first call, or the bridge restarted) signs
   * in with this run's key: the cookie it gets back is this run's. It
   * throws SignedOut when the page cannot go on.
   */
  async function refresh() {
    let { resp, data } = await session({ headers: key ? { Authorization: 'Bearer ' + key } : {} });
    if (resp.status === 401 && secret && data.run) {
      run = data.run;
      key = await pageKey(secret, run);
      ({ resp, data } = await session({
        method: 'POST', headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ session: secret.split('.').slice(1, 3).join('.'), key }),
      }));
    }
    if (resp.status === 401) {
      key = '';
      throw new SignedOut();
    }
    if (!resp.ok) throw Object.assign(new Error(data.error || resp.statusText), { status: resp.status });
    run = data.run;
    return data;
  }

  /**
   * call is fetch for the bridge's API: same-origin, uncached, with the
   * page key. A 401 (the bridge restarted, the cookie aged) refreshes the
   * session once and tries again.
   */
  async function call(path, { method = 'GET', body } = {}) {
    for (let again = true; ; again = false) {
      const headers = { Authorization: 'Bearer ' + key };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      const resp = await fetch(path, {
        method, headers, credentials: 'same-origin', cache: 'no-store',
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (resp.status !== 401 || !again) return resp;
      await refresh(); // throws SignedOut when the page cannot go on
    }
  }

  return {
    refresh,
    call,
    /** key is this run's page key ('' when signed out). */
    key: () => key,
    /**
     * resumable: this page holds its secret, so a "signed out" may be a
     * restart (or whoever held the port meanwhile) and is worth retrying.
     */
    resumable: () => secret !== '',
    /** carry is the fragment that lets the other page write in this run. */
    carry: () => (key ? '#pk=' + encodeURIComponent(key) : ''),
  };
}
