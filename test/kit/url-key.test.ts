import { describe, expect, it } from 'vitest';
import { urlKey } from '../../src/kit/index.js';

describe('urlKey', () => {
  it('is the url as a string, one key for a URL and its href; null for none', () => {
    expect(urlKey('/api/jobs/1')).toBe('/api/jobs/1');
    expect(urlKey(new URL('https://api.example.com/jobs/1?a=1'))).toBe('https://api.example.com/jobs/1?a=1');
    expect(urlKey(new URL('https://api.example.com/jobs/1'))).toBe(urlKey('https://api.example.com/jobs/1'));
    expect(urlKey(null)).toBeNull();
    expect(urlKey('')).toBe('');
  });

  it('calls a getter (a Svelte getter, a Solid accessor) for the current url, each time', () => {
    let url: string | URL | null = '/a';
    const getter = (): string | URL | null => url;
    expect(urlKey(getter)).toBe('/a');
    url = new URL('https://x.test/b');
    expect(urlKey(getter)).toBe('https://x.test/b');
    url = null;
    expect(urlKey(getter)).toBeNull();
  });
});
