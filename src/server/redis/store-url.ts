/**
 * @module server/redis/store-url
 * What a `--store` URL is, and how it is shown: without its password, which is never echoed.
 * Apart from the connection module so that checking a URL loads no Redis code.
 */

/** The URL with any password replaced, for messages and logs (a URL is no place for a secret to be echoed). */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unreadable store URL)';
  }
}

/** True when `url` names a Redis server (redis:// or rediss://). */
export function isRedisUrl(url: string): boolean {
  return /^rediss?:\/\//i.test(url);
}
