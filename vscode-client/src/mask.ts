// Masking of secrets in log text before it is shown (the `denpex.maskSecrets` setting). Pure.
// Logs of training jobs carry tokens in launch lines, environment dumps and URLs; a screenshot of the result panel
// should not leak them. What is masked: the value of NAME=value / NAME: value where NAME looks like a secret, the
// password of user:password@ in URLs, bearer/basic authorization values, and well-known token shapes.

export const MASK = '****';

// NAME=value, NAME: value, --name=value, --name value, "name": "value" where the name says it is a secret.
const NAMED =
  /((?:--?)?["']?[A-Za-z0-9_.-]*(?:TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|API[_-]?KEY|ACCESS[_-]?KEY|PRIVATE[_-]?KEY|AUTH[_-]?KEY|CREDENTIALS?|SESSION[_-]?KEY)[A-Za-z0-9_.-]*["']?)(\s*[=:]\s*|\s+)(["']?)([^\s"',;}]+)/gi;
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]+):([^\s@/]+)@/gi;
// Authorization values; the value must hold a digit so that prose ("Basic information") stays.
const AUTH_HEADER = /\b(Bearer|Basic)\s+(?=[A-Za-z0-9._~+/=-]*\d)([A-Za-z0-9._~+/=-]{8,})/g;
const TOKEN_SHAPES: RegExp[] = [
  /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g, // GitHub
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\bhf_[A-Za-z0-9]{20,}\b/g, // Hugging Face
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, // AWS access key id
  /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g, // Slack
  /\bsk-[A-Za-z0-9_-]{20,}\b/g, // OpenAI-style
  /\bwandb_[A-Za-z0-9]{20,}\b/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g, // JWT
];

// Names that contain a secret word but are not secrets (token counts in training logs).
const NOT_SECRET = /^(?:--?)?["']?(?:tokens?(?:[_/-]?(?:per|s)[_/-]?\w*)?|num[_-]?tokens|max[_-]?tokens|total[_-]?tokens|tokenizer\w*|\w*_tokens)["']?$/i;

export function maskSecrets(text: string): string {
  let out = text.replace(NAMED, (whole, name: string, sep: string, quote: string, value: string) => {
    if (NOT_SECRET.test(name)) return whole;
    if (/^\s+$/.test(sep) && !/^--?/.test(name)) return whole; // "password reset" in prose: only flags take a bare space
    if (value === MASK || /^\$\{?\w+\}?$/.test(value)) return whole; // already masked, or a shell reference like $HF_TOKEN
    return `${name}${sep}${quote}${MASK}`;
  });
  out = out.replace(URL_CREDENTIALS, (_w, head: string) => `${head}:${MASK}@`);
  out = out.replace(AUTH_HEADER, (_w, kind: string) => `${kind} ${MASK}`);
  for (const re of TOKEN_SHAPES) out = out.replace(re, MASK);
  return out;
}
