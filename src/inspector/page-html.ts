/** The page's HTML shell. The script and stylesheet are separate files, so the CSP needs no inline anything. */

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>model-gateway inspector</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="inspector.css">
<script defer src="inspector.js"></script>
</head>
<body>
<p>Loading the inspector… (if this stays, its script did not load: open inspector.js here to see why)</p>
<noscript>The inspector needs JavaScript.</noscript>
</body>
</html>
`;
