/**
 * Mail addresses as troupe uses them: which inbox usernames are allowed, how header values such as
 * `"Doe, Jane" <Jane@Example.com>` become one lowercase address, and whether a domain passes the
 * configured allow and block lists. Pure: the inbox actor, routes and transports all decide the same way.
 */

/**
 * An inbox username: lowercase letters, digits, `.`, `_` and `-`, 1–64 characters, starting and ending
 * with a letter or digit, never two dots in a row. Narrower than RFC 5322 on purpose: such a local part
 * never needs quoting and reads the same in every client.
 */
export const USERNAME_PATTERN = /^(?=.{1,64}$)(?!.*\.\.)[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$/;

/** USERNAME_PATTERN in words, for the 400 answer to an invalid username. */
export const USERNAME_RULE =
  'A username is 1 to 64 characters of lowercase letters, digits, ".", "_" and "-", starts and ends with a letter or digit, and has no two dots in a row.';

export type ParsedAddress = { address: string; name?: string };

export type DomainPolicy = { allow: string[]; block: string[] };

export type DomainPolicyResult = { ok: true } | { ok: false; reason: string };

export function isValidUsername(username: string): boolean {
  return USERNAME_PATTERN.test(username);
}

export function addressOf(username: string, domain: string): string {
  return `${username}@${domain}`.toLowerCase();
}

/** Dot-atom local part (RFC 5322 atext, no leading, trailing or doubled dot); quoted local parts are not accepted. */
const LOCAL_PART = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
/** Hostname labels of letters, digits and inner hyphens; a single label (`localhost`) is allowed. */
const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function normalisedAddress(candidate: string): string | null {
  const address = candidate.trim().toLowerCase();
  const at = address.lastIndexOf('@');
  if (at <= 0 || address.length > 254) return null;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length > 64 || !LOCAL_PART.test(local) || !DOMAIN.test(domain)) return null;
  return address;
}

/** A display name without its quotes and backslash escapes, or undefined when nothing is left. */
function displayName(raw: string): string | undefined {
  let name = raw.trim();
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"')) {
    name = name.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  name = name.replace(/\s+/g, ' ').trim();
  return name === '' ? undefined : name;
}

/**
 * One address from a header value: `Name <a@b>`, `"Last, First" <a@b>`, `<a@b>`, bare `a@b`, or the old
 * comment form `a@b (Name)`. The address is lowercased; null when there is no valid address.
 */
export function parseAddress(text: string): ParsedAddress | null {
  const value = text.trim();
  const angled = /^(.*?)<([^<>]*)>\s*$/s.exec(value);
  if (angled) {
    const address = normalisedAddress(angled[2]!);
    if (!address) return null;
    const name = displayName(angled[1]!);
    return name ? { address, name } : { address };
  }
  const commented = /^(\S+)\s*\(([^()]*)\)$/.exec(value);
  if (commented) {
    const address = normalisedAddress(commented[1]!);
    if (!address) return null;
    const name = displayName(commented[2]!);
    return name ? { address, name } : { address };
  }
  const address = normalisedAddress(value);
  return address ? { address } : null;
}

/** Splits on `,` or `;` outside quotes, angle brackets and comments, so `"Doe, Jane" <j@x>` stays whole. */
function splitAddressList(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  let angle = 0;
  let comment = 0;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quoted && char === '\\' && i + 1 < text.length) {
      current += char + text[i + 1]!;
      i += 1;
      continue;
    }
    if (char === '"' && angle === 0 && comment === 0) quoted = !quoted;
    else if (!quoted && char === '<') angle += 1;
    else if (!quoted && char === '>') angle = Math.max(0, angle - 1);
    else if (!quoted && angle === 0 && char === '(') comment += 1;
    else if (!quoted && angle === 0 && char === ')') comment = Math.max(0, comment - 1);
    else if (!quoted && angle === 0 && comment === 0 && (char === ',' || char === ';')) {
      parts.push(current);
      current = '';
      continue;
    }
    current += char;
  }
  parts.push(current);
  return parts;
}

/**
 * Every valid address of a To/Cc style list, in order, each once (the first spelling's name wins).
 * Invalid entries are skipped rather than failing the list: one bad Cc must not lose the others.
 */
export function parseAddressList(text: string): ParsedAddress[] {
  const seen = new Set<string>();
  const list: ParsedAddress[] = [];
  for (const part of splitAddressList(text)) {
    const parsed = parseAddress(part);
    if (!parsed || seen.has(parsed.address)) continue;
    seen.add(parsed.address);
    list.push(parsed);
  }
  return list;
}

/** The lowercase domain of an address, or '' when it has none. */
export function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0 ? '' : address.slice(at + 1).trim().toLowerCase();
}

/** A policy entry as written by an operator (`Example.com`, `@example.com`, `*.example.com`) to a bare domain. */
function policyDomain(entry: string): string {
  return entry.trim().toLowerCase().replace(/^\*?[.@]?/, '').replace(/\.$/, '');
}

function coveredBy(domain: string, entries: string[]): boolean {
  return entries.map(policyDomain).some((listed) => listed !== '' && (domain === listed || domain.endsWith(`.${listed}`)));
}

/**
 * Whether mail to or from `address` is allowed. The block list wins; a non-empty allow list admits only
 * its domains. A listed domain covers its subdomains (`example.com` covers `mail.example.com`).
 */
export function domainPolicy(address: string, policy: DomainPolicy): DomainPolicyResult {
  const domain = domainOf(address).replace(/\.$/, '');
  if (domain === '') return { ok: false, reason: `"${address}" has no domain` };
  if (coveredBy(domain, policy.block)) return { ok: false, reason: `the domain ${domain} is blocked` };
  if (policy.allow.some((entry) => policyDomain(entry) !== '') && !coveredBy(domain, policy.allow)) {
    return { ok: false, reason: `the domain ${domain} is not on the allow list` };
  }
  return { ok: true };
}
