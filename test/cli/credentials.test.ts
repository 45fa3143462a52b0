import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBin, runCli } from './helpers/run-cli.js';
import { json, scripted } from '../helpers/server.js';
import { expectCode, serverPool } from './helpers/servers.js';

beforeAll(() => ensureBin());

const SECRET = 'hunter2secret';
const servers = serverPool();

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

describe.concurrent('a URL is printed as the library prints it: query values and fragment as ***', { timeout: 60_000 }, () => {
  it('the request line, the verdict and the summary of a poll (-v)', async () => {
    const server = await servers.http(scripted([json(200, { status: 'done' })]));
    const run = await runCli([`${server.url}/jobs?api_key=${SECRET}&page=2#t=${SECRET}`, '-u', 'status=done', '-v', '--no-color']);
    expectCode(run, 0);
    expect(run.stdout + run.stderr).not.toContain(SECRET);
    expect(run.stdout + run.stderr).toContain(`> GET ${server.url}/jobs?api_key=***&page=***#***`);
    expect(run.stdout).toContain(`\ndone: ${server.url}/jobs?api_key=***&page=***#*** (status=done) after `);
    expect(server.requests[0]!.path).toBe(`/jobs?api_key=${SECRET}&page=2`);
  });

  it('an HTTP error line', async () => {
    const server = await servers.http(scripted([json(404, {})]));
    const run = await runCli([`${server.url}/jobs?sig=${SECRET}`, '-u', 'status=done', '--no-color']);
    expect(run.stderr).toContain(`HTTP 404 Not Found from ${server.url}/jobs?sig=***`);
    expect(run.stdout + run.stderr).not.toContain(SECRET);
  });

  it('a usage error echoing the URL, and its guess', async () => {
    const run = await runCli([`api.example.test/jobs?api_key=${SECRET}`, '-u', 'status=done']);
    expectCode(run, 64);
    expect(run.stderr).toBe("pollite: 'api.example.test/jobs?api_key=***' is not an http(s) URL: did you mean http://api.example.test/jobs?api_key=*** ?\nRun 'pollite --help' for usage.\n");
  });
});
