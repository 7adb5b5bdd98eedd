// The pages shown before a session exists: the sign-in page (the identity provider's button, and the
// local sign-in with the admin token unless turned off), the page that carries a person on after the
// provider sent them back, and the refusals (no role; a sign-in that failed). Nothing signed in can load
// the console's stylesheet yet, so each carries it inline, allowed by the response's CSP nonce.
import { html, Markup } from './html.ts';

/** The project's own stylesheet: trusted text, not escaped. */
class RawCss extends Markup {}

export type SignInPageStyle = { nonce: string; css: string };

function signInLayout(title: string, style: SignInPageStyle, body: Markup, head: Markup = html``): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · crm-sync</title>
${head}
<style nonce="${style.nonce}">${new RawCss(style.css)}</style>
</head>
<body>
<header class="top"><a class="brand" href="/">crm-sync</a></header>
<main id="main">
${body}
</main>
</body>
</html>`.text;
}

export type LoginOptions = {
  next?: string;
  failed?: boolean;
  /** Why the person is here: their session ran out, or they just signed out. */
  notice?: 'expired' | 'signed-out';
  /** The identity provider's name (its host) when sign-in through it is configured. */
  provider?: string;
  /** Whether the admin token may be typed here. */
  local: boolean;
};

export function signInPage(options: LoginOptions, style: SignInPageStyle): string {
  const next = options.next ?? '/';
  return signInLayout(
    'Sign in',
    style,
    html`<section class="login" aria-labelledby="login-title">
  <h1 id="login-title">Sign in to the console</h1>
  ${options.notice === 'expired' ? html`<p class="flash" role="status">Your session has ended: sign in again.</p>` : ''}
  ${options.notice === 'signed-out' ? html`<p class="flash" role="status">You are signed out of the console.</p>` : ''}
  ${options.provider
    ? html`<p><a class="button" id="sign-in-provider" href="/auth/sign-in?next=${encodeURIComponent(next)}">Sign in with ${options.provider}</a></p>`
    : ''}
  ${options.local
    ? html`${options.provider ? html`<h2>Local sign-in</h2>` : ''}
  <p>Use the admin token: <code>npm start</code> prints it, and it is kept in the data directory's <code>admin-token</code> file (or set by <code>CRM_SYNC_ADMIN_TOKEN</code>). It signs in with admin rights.</p>
  ${options.failed ? html`<p class="error" role="alert">That token is not this worker's admin token.</p>` : ''}
  <form method="post" action="/login">
    <input type="hidden" name="next" value="${next}">
    <input type="text" name="username" value="admin" autocomplete="username" hidden>
    <label for="token">Admin token</label>
    <input id="token" name="token" type="password" autocomplete="current-password" required ${options.provider ? '' : 'autofocus'}>
    <button type="submit">Sign in</button>
  </form>`
    : ''}
</section>`,
  );
}

/** After the provider's redirect: a same-site step on, so the SameSite=Strict session cookie goes with the next request. */
export function signedInPage(name: string, next: string, style: SignInPageStyle): string {
  return signInLayout(
    'Signed in',
    style,
    html`<section class="login"><h1>Signed in as ${name}</h1><p><a href="${next}">Continue to the console</a></p></section>`,
    html`<meta http-equiv="refresh" content="0;url=${next}">`,
  );
}

export function noRolePage(person: { name: string; email?: string }, provider: string, groups: string[], style: SignInPageStyle): string {
  const who = person.email && person.email !== person.name ? `${person.name} (${person.email})` : person.name;
  return signInLayout(
    'No access',
    style,
    html`<section class="login" aria-labelledby="refused-title">
  <h1 id="refused-title">No access to this console</h1>
  <p role="alert">${provider} signed you in as <strong>${who}</strong>, but you are in none of the groups that may use this console${groups.length ? html`: ${groups.map((group, index) => html`${index ? ', ' : ''}<code>${group}</code>`)}` : ' (your roles claim names none of admin, operator, viewer)'}.</p>
  <p>Ask whoever runs crm-sync to add you to one of them, then <a href="/login">sign in again</a>.</p>
</section>`,
  );
}

export function signInFailedPage(message: string, style: SignInPageStyle): string {
  return signInLayout(
    'Sign-in failed',
    style,
    html`<section class="login" aria-labelledby="failed-title">
  <h1 id="failed-title">Sign-in did not complete</h1>
  <p role="alert">${message}</p>
  <p><a href="/login">Back to the sign-in page</a></p>
</section>`,
  );
}
