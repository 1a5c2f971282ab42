/**
 * The key cards are looked up by when a pasted deck list is parsed: people type "lim duls vault",
 * "Lim-Dûl's Vault" or "LIM-DUL'S VAULT" for the same card, so case, accents, punctuation and spaces
 * are dropped and only letters and digits remain.
 */
export function cardLookupKey(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '') // combining accents left by NFKD: "û" -> "u"
    .normalize('NFC') // recomposes what NFKD split without marks (Hangul syllables)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]/gu, '');
}

/**
 * Every key a card answers to: its name as written in deck lists and, for double-faced cards, the
 * full "Front // Back" name too.
 */
export function cardLookupKeys(name: string, fullName?: string | null): string[] {
  const keys = [cardLookupKey(name)];
  if (fullName) {
    const full = cardLookupKey(fullName);
    if (!keys.includes(full)) keys.push(full);
  }
  return keys;
}
