/** Masks `user:password@` in a URL-like string so it can be printed or logged. */
export function maskUrlCredentials(value: string): string {
  return value.replace(/(\/\/)[^/@]*@/, '$1***@');
}
