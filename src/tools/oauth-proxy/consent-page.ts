function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

export interface ConsentPage {
  readonly resourceName: string;
  readonly clientName: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  /** Where the form posts. */
  readonly action: string;
  readonly transaction: string;
  readonly csrf: string;
}

/**
 * The proxy's own consent page, shown before any sign-in goes to the identity provider. Every MCP
 * client registers itself here, but the IdP knows only this proxy's one client id, so the IdP's
 * consent (often remembered) cannot tell a user's client from an attacker's: without this page a
 * link to /authorize could send the user's code to an attacker's redirect URI (MCP's "confused
 * deputy"). The page names the client and where it will receive the code.
 */
export function consentPage(page: ConsentPage): string {
  const redirect = URL.canParse(page.redirectUri) ? new URL(page.redirectUri) : undefined;
  const where = redirect ? `${redirect.protocol}//${redirect.host}` : page.redirectUri;
  const hidden = (decision: string) => [
    `<input type="hidden" name="transaction" value="${escapeHtml(page.transaction)}">`,
    `<input type="hidden" name="csrf" value="${escapeHtml(page.csrf)}">`,
    `<input type="hidden" name="decision" value="${decision}">`,
  ].join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Allow ${escapeHtml(page.clientName)}?</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 3rem auto;">
<h1>Allow ${escapeHtml(page.clientName)} to use ${escapeHtml(page.resourceName)}?</h1>
<p>The application <strong>${escapeHtml(page.clientName)}</strong> (client id <code>${escapeHtml(page.clientId)}</code>) asks to act as you.
If you continue, you sign in at your identity provider and the application receives its answer at <strong>${escapeHtml(where)}</strong>.</p>
${page.scopes.length > 0 ? `<p>Scopes: ${page.scopes.map((s) => `<code>${escapeHtml(s)}</code>`).join(' ')}</p>` : ''}
<p>Continue only if you started this sign-in from that application.</p>
<form method="post" action="${escapeHtml(page.action)}">${hidden('approve')}<button type="submit">Continue to sign in</button></form>
<form method="post" action="${escapeHtml(page.action)}">${hidden('deny')}<button type="submit">Deny</button></form>
</body></html>
`;
}
