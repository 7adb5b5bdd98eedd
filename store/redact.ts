// Takes secrets out of data we keep or show (dead letters: raw commerce rows, CRM errors, reasons).
// A raw entitlement carries `spaUrl`, a URL whose signed token lets a buyer in without logging in
// (contract §2.3); errors may quote tokens or presigned links. Pure: same input, same output, so a
// redacted payload can still be compared with a redacted one.

export const REDACTED = '[redacted]';

/** Deeper than this nothing is read: a hostile payload cannot exhaust the stack, nor hide a secret below. */
const MAX_DEPTH = 64;

// Keys compared in lower case without separators: client_secret, clientSecret and Client-Secret alike.
const SECRET_KEYS = new Set([
  'spaurl', 'password', 'passwd', 'pwd', 'secret', 'token', 'authorization', 'proxyauthorization', 'cookie', 'setcookie',
  'apikey', 'xapikey', 'privatekey', 'secretkey', 'accesskey', 'sessionid', 'signature', 'credentials', 'credential', 'bearer',
]);
const SECRET_KEY_ENDINGS = ['secret', 'token', 'password', 'apikey', 'privatekey', 'signature'];

// Query parameters that sign or authorise a URL (presigned object storage, SAS, CloudFront, OAuth).
const SECRET_PARAMS = new Set([
  'signature', 'sig', 'token', 'code', 'key', 'apikey', 'auth', 'jwt', 'password', 'secret', 'policy', 'keypairid',
  'xamzsignature', 'xamzcredential', 'xamzsecuritytoken', 'xgoogsignature', 'xgoogcredential',
]);
// In free text a bare `key=` or `code=` is more often an error's wording than a secret: only these.
const SECRET_TEXT_PAIRS = new Set(['sig', 'xamzcredential', 'xgoogcredential']);
const SECRET_PARAM_ENDINGS = ['token', 'secret', 'signature', 'password'];

const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

export function isSecretKey(key: string): boolean {
  const name = squash(key);
  return SECRET_KEYS.has(name) || SECRET_KEY_ENDINGS.some((ending) => name.endsWith(ending));
}

export function isSecretParam(name: string): boolean {
  const squashed = squash(name);
  return SECRET_PARAMS.has(squashed) || SECRET_PARAM_ENDINGS.some((ending) => squashed.endsWith(ending));
}

// A URL in text: scheme://, then anything up to white space or a quote or bracket that ends it. Both
// this and the pairs below only start where a run of name characters starts: tried at every position
// inside a long run (an oversized field of a commerce record), they took time in the square of its
// length, and a 300 kB value held the worker for minutes.
const URL_IN_TEXT = /(?<![a-z0-9+.-])[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
// name=value pairs (query strings, form bodies, log lines) and "name": "value" (JSON quoted in text).
const PAIR_IN_TEXT = /(?<![A-Za-z0-9_.-])([A-Za-z0-9_.-]+)=([^&\s"'<>`;,]+)/g;
const JSON_PAIR_IN_TEXT = /"([A-Za-z0-9_.-]+)"\s*:\s*"((?:[^"\\]|\\.)*)"/g;
// The same pair quoted inside a JSON string (an error's message carrying an answer's body): \"name\":\"value\".
const ESCAPED_JSON_PAIR_IN_TEXT = /\\"([A-Za-z0-9_.-]+)\\"(\s*:\s*)\\"((?:[^"\\]|\\[^"])*)\\"/g;
// name: value (headers, logs, YAML), the value quoted or one run of credential characters. Unquoted, it is
// hidden only when it looks like a credential (see looksLikeCredential): "token: expired" stays readable.
const COLON_PAIR_IN_TEXT = /(?<![A-Za-z0-9_.-])([A-Za-z][A-Za-z0-9_-]*)(\s*:\s*)(?:(['"])([^'"\n]*)\3|((?:Bearer|Basic)\s+)?([A-Za-z0-9._~+/=!-]+))/g;
// Long enough to be a credential, so "Basic plan" stays readable.
const BEARER_IN_TEXT = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=!-]{16,}/gi;

/**
 * A signed URL keeps its origin and path so a person still sees what it was:
 * `https://host/path?[redacted]`. Credentials in the URL (user:password@) and a fragment go too.
 */
function redactUrl(text: string, signed: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return signed ? REDACTED : text;
  }
  const hasSecretParam = [...url.searchParams.keys()].some(isSecretParam);
  const hasCredentials = url.password !== '' || (url.username !== '' && signed);
  if (!signed && !hasSecretParam && !hasCredentials && !/token|secret|sig/i.test(url.hash)) return text;
  const base = url.protocol + '//' + url.host + url.pathname;
  if (url.search || url.hash) return `${base}?${REDACTED}`;
  // A signed URL without a query string carries its token in the path: keep only where it points.
  return signed ? `${url.protocol}//${url.host}/${REDACTED}` : base;
}

/** At least 8 characters mixing in a digit (a password, a key), or 20 and more: no word of a sentence. */
const looksLikeCredential = (value: string) => (value.length >= 8 && /\d/.test(value)) || value.length >= 20;
// Names that sentences use for states as often as for values ("token: expired", "authorization: denied"):
// their unquoted value is hidden only when it looks like a credential. Every other secret name
// (password, client_secret, api_key, refresh_token) names a value; a bare "secret" is vague too ("client secret: save it again" is our own advice), so its value is always hidden, however
// short: "password: hunter2" is a password.
const VAGUE_SECRET_NAMES = new Set(['token', 'secret', 'authorization', 'auth', 'bearer', 'cookie', 'credentials', 'credential', 'signature']);

/** Secrets inside free text: signed URLs, name=value and name: value pairs, quoted JSON pairs (also inside JSON strings), Authorization values. */
export function redactText(text: string): string {
  return text
    .replace(URL_IN_TEXT, (url) => {
      // Trailing punctuation belongs to the sentence, not the URL.
      const trail = /[.,;:!?)\]}]+$/.exec(url)?.[0] ?? '';
      return redactUrl(url.slice(0, url.length - trail.length), false) + trail;
    })
    .replace(PAIR_IN_TEXT, (pair, name: string) => (isSecretKey(name) || SECRET_TEXT_PAIRS.has(squash(name)) ? `${name}=${REDACTED}` : pair))
    .replace(JSON_PAIR_IN_TEXT, (pair, name: string) => (isSecretKey(name) ? `"${name}":"${REDACTED}"` : pair))
    .replace(ESCAPED_JSON_PAIR_IN_TEXT, (pair, name: string, colon: string) => (isSecretKey(name) ? `\\"${name}\\"${colon}\\"${REDACTED}\\"` : pair))
    .replace(COLON_PAIR_IN_TEXT, (pair, name: string, colon: string, quote: string | undefined, quoted: string | undefined, scheme: string | undefined, bare: string | undefined) => {
      if (!isSecretKey(name) || quoted === REDACTED || bare === REDACTED) return pair;
      if (quote !== undefined) return quoted ? `${name}${colon}${quote}${REDACTED}${quote}` : pair;
      return scheme || !VAGUE_SECRET_NAMES.has(squash(name)) || looksLikeCredential(bare!) ? `${name}${colon}${scheme ?? ''}${REDACTED}` : pair;
    })
    .replace(BEARER_IN_TEXT, (_match, scheme: string) => `${scheme} ${REDACTED}`);
}

function redactSecretValue(value: unknown): unknown {
  if (typeof value === 'string' && /^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim())) return redactUrl(value.trim(), true);
  // Nothing to hide in an absent value or a flag (isSecret: true).
  if (value === null || value === undefined || value === '' || typeof value === 'boolean') return value;
  return REDACTED;
}

/**
 * A copy of `value` with every secret replaced by "[redacted]": the values of keys that name secrets,
 * signed URLs (anywhere, also inside text), recursively through objects and arrays. Keys are kept.
 */
export function redactSecrets<T>(value: T): T {
  return walk(value, 0, new WeakSet()) as T;
}

function walk(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return `${REDACTED} (nested more than ${MAX_DEPTH} levels)`;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    const json = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof json === 'function' && !Array.isArray(value)) return walk(json.call(value), depth + 1, seen);
    if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1, seen));
    const copy: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // defineProperty: a key named "__proto__" stays a plain key instead of changing the copy's prototype.
      Object.defineProperty(copy, key, {
        value: isSecretKey(key) ? redactSecretValue(item) : walk(item, depth + 1, seen),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  } finally {
    seen.delete(value);
  }
}
