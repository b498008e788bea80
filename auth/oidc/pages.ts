// The built-in provider's pages: login, consent and errors. Plain HTML forms
// (no JavaScript), every value escaped; the headers that go with them forbid
// scripts and framing.

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

export const PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

const STYLE = `body{font-family:system-ui,sans-serif;background:#f4f6f8;margin:0}
main{max-width:22rem;margin:4rem auto;background:#fff;padding:1.5rem 2rem;border-radius:6px;box-shadow:0 1px 4px #0003}
h1{font-size:1.3rem}label{display:block;margin:.8rem 0 .2rem}input[type=text],input[type=password]{width:100%;padding:.4rem;box-sizing:border-box}
button{margin-top:1rem;padding:.5rem 1rem}.error{color:#b00020}.muted{color:#555;font-size:.9rem}ul{padding-left:1.2rem}
form.inline{display:inline}`;

function layout(title: string, body: string) {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} - Map Topology Service</title><style>${STYLE}</style></head>
<body><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`;
}

export interface LoginView {
  action: string;
  csrf: string;
  client: string;
  username?: string;
  error?: string;
}

export const loginPage = (v: LoginView) => layout('Sign in', `
<p class="muted">to continue to ${escapeHtml(v.client)}</p>
${v.error ? `<p class="error">${escapeHtml(v.error)}</p>` : ''}
<form method="post" action="${escapeHtml(v.action)}/login">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}">
<label for="username">Username</label>
<input type="text" id="username" name="username" autocomplete="username" autofocus required value="${escapeHtml(v.username ?? '')}">
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<form method="post" action="${escapeHtml(v.action)}/abort" class="inline">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}"><button type="submit">Cancel</button>
</form>`);

export interface ConsentView {
  action: string;
  csrf: string;
  client: string;
  username: string;
  granted: string[];
  dropped: string[];
}

const list = (items: string[]) => `<ul>${items.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join('')}</ul>`;

export const consentPage = (v: ConsentView) => layout('Allow access?', `
<p>${escapeHtml(v.client)} asks to act as <strong>${escapeHtml(v.username)}</strong> with these permissions:</p>
${v.granted.length ? list(v.granted) : '<p class="muted">(no API permissions)</p>'}
${v.dropped.length ? `<p class="muted">Not granted, because your account does not hold them:</p>${list(v.dropped)}` : ''}
<form method="post" action="${escapeHtml(v.action)}/confirm" class="inline">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}"><button type="submit">Allow</button>
</form>
<form method="post" action="${escapeHtml(v.action)}/abort" class="inline">
<input type="hidden" name="csrf" value="${escapeHtml(v.csrf)}"><button type="submit">Deny</button>
</form>`);

export const errorPage = (error: string, description?: string) => layout('Sign-in problem', `
<p class="error">${escapeHtml(description ?? error)}</p>
<p class="muted">Go back to the application and start signing in again. (${escapeHtml(error)})</p>`);

/**
 * The logout confirmation (oidc-provider's rpInitiatedLogout.logoutSource): `form` is the provider's own
 * hidden form (its action and xsrf token), written as given; the buttons submit it. Its default page
 * imports a web font from Google, which a service shown offline, or kept off the internet, must not.
 */
export const logoutPage = (form: string, host: string) => layout('Sign out?', `
<p>Do you want to sign out from ${escapeHtml(host)}?</p>
${form}
<button autofocus type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button>`);

/** After a logout that names no page to return to (rpInitiatedLogout.postLogoutSuccessSource). */
export const loggedOutPage = (client?: string) => layout('Signed out', `
<p>You are signed out${client ? ` of ${escapeHtml(client)}` : ''}.</p>`);
