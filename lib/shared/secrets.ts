/**
 * Detection of secrets in text: private keys (also base64-encoded) and GitHub tokens. Shared by the output's
 * secret scanner and the config schema, which must never echo them. Messages show at most a short prefix.
 */

const PEM_PRIVATE_KEY = /-----BEGIN ((?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP |ANY )?PRIVATE KEY(?: BLOCK)?)-----/g;
/** `-----BEGIN` in base64, at the start of an encoded value. */
const BASE64_PEM_START = 'LS0tLS1CRUdJTi';
const GITHUB_TOKEN = /\b(gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b/g;
function redact(token: string): string {
  return `${token.slice(0, token.startsWith('github_pat_') ? 15 : 8)}...`;
}

/** A secret found in text: where it starts, and what it is (redacted: never the secret itself). */
export interface SecretMatch {
  readonly index: number;
  /** e.g. `a PEM private key (OPENSSH PRIVATE KEY)`, `a GitHub token (ghp_abcd...)`. */
  readonly what: string;
  readonly kind: 'pem' | 'base64-pem' | 'github-token';
}

/** Private keys (also base64-encoded) and GitHub tokens in `content`, in the order of the scanner's rules. */
export function findSecrets(content: string): SecretMatch[] {
  const out: SecretMatch[] = [];
  for (const m of content.matchAll(PEM_PRIVATE_KEY)) out.push({ index: m.index ?? 0, what: `a PEM private key (${m[1]})`, kind: 'pem' });
  let from = 0;
  for (;;) {
    const at = content.indexOf(BASE64_PEM_START, from);
    if (at < 0) break;
    // The encoded value runs until the first character that base64 (and YAML line folding) cannot contain.
    const run = /^[A-Za-z0-9+/=\s]*/.exec(content.slice(at, at + 64 * 1024))?.[0] ?? '';
    from = at + Math.max(run.length, 1);
    const decoded = Buffer.from(run.replace(/\s+/g, ''), 'base64').toString('latin1');
    const m = new RegExp(PEM_PRIVATE_KEY.source).exec(decoded);
    if (m) out.push({ index: at, what: `a base64-encoded PEM private key (${m[1]})`, kind: 'base64-pem' });
  }
  for (const m of content.matchAll(GITHUB_TOKEN)) out.push({ index: m.index ?? 0, what: `a GitHub token (${redact(m[1])})`, kind: 'github-token' });
  return out;
}


/** `scheme://userinfo@` of a URL, anywhere in a string. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*):\/\/([^\s/?#@]*)@/gi;
/** The scp-like git form `user:password@host:path` (plain `git@host:path` carries no credential). */
const SCP_PASSWORD = /(^|\s)[^\s@/:]+:[^\s@/]+@[^\s@/:]+:/;

/**
 * Why `text` carries credentials in a URL, or undefined when it does not: any userinfo in an http(s), oci or
 * other URL (`https://user:password@host`, `https://ghp_token@github.com`), and a password in an ssh or
 * scp-like git URL (`ssh://git@host` alone names the SSH user and is fine). Never returns the credential.
 */
export function urlCredentialProblem(text: string): string | undefined {
  for (const m of text.matchAll(URL_USERINFO)) {
    const scheme = m[1].toLowerCase();
    const userinfo = m[2];
    if ((scheme === 'ssh' || scheme === 'git+ssh') && !userinfo.includes(':')) continue;
    return `contains credentials in a ${scheme}:// URL (the part before '@')`;
  }
  if (SCP_PASSWORD.test(text)) return 'contains a password in an scp-like git URL (user:password@host:path)';
  return undefined;
}
