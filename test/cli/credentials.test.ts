import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBin, runCli } from './helpers/run-cli.js';
import { expectCode } from './helpers/servers.js';

beforeAll(() => ensureBin());

const SECRET = 'hunter2secret';

describe.concurrent('a URL carrying credentials is refused without printing them', { timeout: 60_000 }, () => {
  it.each([
    [`user:${SECRET}@host/`, "pollite: '***@host/' is not an http(s) URL: give an http:// or https:// URL"],
    [`ftp://user:${SECRET}@127.0.0.1/file`, "pollite: 'ftp://***@127.0.0.1/file' is not an http(s) URL: give an http:// or https:// URL"],
    [`ws://user:${SECRET}@127.0.0.1/socket`, "pollite: 'ws://***@127.0.0.1/socket' is not an http(s) URL: give an http:// or https:// URL"],
    [`wss://${SECRET}@127.0.0.1/`, "pollite: 'wss://***@127.0.0.1/' is not an http(s) URL: give an http:// or https:// URL"],
    [`//user:${SECRET}@127.0.0.1/`, "pollite: '//***@127.0.0.1/' is not an http(s) URL: give an http:// or https:// URL"],
    [`sftp://user:${SECRET}@127.0.0.1/`, "pollite: 'sftp://***@127.0.0.1/' is not an http(s) URL: give an http:// or https:// URL"],
    // No parser reads this one (the password holds a slash): redacted by its shape.
    [`http://user:hun/${SECRET}@127.0.0.1/`, "pollite: 'http://***@127.0.0.1/' is not an http(s) URL: give an http:// or https:// URL"],
    [`http://user:${SECRET}@127.0.0.1:9/`, "pollite: the URL carries credentials, which fetch refuses: send them with -H 'Authorization: Basic ...' instead"],
    [`http:\\\\user:${SECRET}@127.0.0.1:9/`, "pollite: the URL carries credentials, which fetch refuses: send them with -H 'Authorization: Basic ...' instead"],
  ])('%s: exit 64, credentials never printed', async (url, message) => {
    const run = await runCli([url, '-u', 'status=done']);
    expectCode(run, 64);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`${message}\nRun 'pollite --help' for usage.\n`);
    expect(run.stderr).not.toContain(SECRET);
  });

  it('an unknown option holding a URL with credentials is redacted too', async () => {
    const run = await runCli([`--proxy=http://u:${SECRET}@127.0.0.1/`, 'http://127.0.0.1:9/']);
    expectCode(run, 64);
    expect(run.stderr).not.toContain(SECRET);
    expect(run.stderr).toBe("pollite: unknown option '--proxy=http://***@127.0.0.1/'\nRun 'pollite --help' for usage.\n");
  });
});
