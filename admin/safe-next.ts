// Where the console sends a person after signing in: a path on this server, never another site. The value
// comes from the URL, so it is hostile until proven otherwise: browsers drop tabs and newlines from a
// Location (`/\t/evil.example` becomes `//evil.example`) and read `\` as `/`, so any control character or
// backslash is refused outright, and what is left must parse as a URL of this server's own origin.
const HERE = 'http://placeholder.invalid';

const UNSAFE = /[\u0000-\u001f\u007f\\]/;

export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith('/') || UNSAFE.test(next)) return '/';
  let parsed: URL;
  try {
    parsed = new URL(next, HERE);
  } catch {
    return '/';
  }
  if (parsed.origin !== HERE) return '/';
  // `/.//evil.example` parses (dot segment removed) to the path `//evil.example`: a Location that names a host.
  if (parsed.pathname.startsWith('//')) return '/';
  return `${parsed.pathname}${parsed.search}${parsed.hash}`;
}
