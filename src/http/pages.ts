// The few server-rendered pages of the login journey: errors a browser lands on, the LIFF entry
// page and the development login. Plain HTML, readable on a phone, no external resources except
// LINE's LIFF SDK on the LIFF page.

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}label{display:block;font-weight:600;margin:.5rem 0 .25rem}
input{font:inherit;padding:.5rem;width:100%;box-sizing:border-box;border:1px solid #555;border-radius:4px}
button{font:inherit;margin-top:.75rem;padding:.5rem 1rem;border:0;border-radius:4px;background:#0b5cad;color:#fff;cursor:pointer}
button.secondary{background:#e8e8e8;color:#1a1a1a}button:focus,input:focus{outline:3px solid #f5a623;outline-offset:1px}
.warning{background:#fff4d6;border-left:4px solid #b36b00;padding:.5rem .75rem}.error{color:#a4000f}code{word-break:break-all}`;

export function page(title: string, body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>
<style>${STYLE}</style>${head}</head><body><main><h1>${escapeHtml(title)}</h1>${body}</main></body></html>`;
}

export function errorPage(code: number, name: string, message: string): string {
  return page(
    'Cannot continue the login',
    `<p class="error" role="alert">${escapeHtml(message)}</p><p>Error <code>${code} ${escapeHtml(name)}</code>.
Go back to the app and try again; if it keeps happening, tell the app's support this code.</p>`,
  );
}

/**
 * The LIFF entry page: LINE opens it inside the app with ?state=...; the LIFF SDK signs the user
 * in, and the page posts the ID token with the state to the service, then follows the redirect.
 */
export function liffPage(liffId: string, postUrl: string): string {
  const script = `
const out = document.getElementById('status');
async function run() {
  const state = new URLSearchParams(location.search).get('state');
  if (!state) { out.textContent = 'This page was opened without a login in progress.'; return; }
  await liff.init({ liffId: ${JSON.stringify(liffId)} });
  if (!liff.isLoggedIn()) { liff.login({ redirectUri: location.href }); return; }
  const response = await fetch(${JSON.stringify(postUrl)}, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ state, idToken: liff.getIDToken() }),
  });
  const body = await response.json();
  if (!response.ok) { out.textContent = body.message + ' (' + body.code + ' ' + body.name + ')'; return; }
  location.replace(body.redirectUrl);
}
run().catch((e) => { out.textContent = 'The login failed: ' + e.message; });`;
  return page(
    'Signing in',
    `<p id="status" role="status" aria-live="polite">Signing you in with LINE…</p><script>${script}</script>`,
    '<script charset="utf-8" src="https://static.line-scdn.net/liff/edge/2/sdk.js"></script>',
  );
}
