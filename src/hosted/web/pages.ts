// Small server-rendered HTML pages (sign-in errors). Everything interpolated is escaped.

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** Headers for every HTML page: no framing, no inline script, no referrer leaking codes. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
} as const;

/** A whole page; `head` is trusted markup for <head> (meta tags, a script by URL), built by the caller with escapeHtml. */
export function page(title: string, body: string, head = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Loom</title>
<link rel="icon" href="/dashboard/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/style.css">
${head}</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p class="error">${escapeHtml(message)}</p>\n<p><a href="/dashboard">Back to Loom</a></p>`);
}
