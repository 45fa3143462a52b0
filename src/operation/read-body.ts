import { ParseError } from '../errors/parse-error.js';
import { readText } from '../http/body.js';

type Parse = ((response: Response) => Promise<unknown>) | undefined;

/**
 * Reads one 2xx body of an operation with `parse`, or as JSON (at most
 * 16 MiB, as `poll` reads) with an empty body read as `undefined`; a 202's body that is not JSON is
 * `undefined` too ("Accepted" as text): the headers say what to do next.
 * The form `poll`'s `parse` takes: poll makes a throw a `ParseError`.
 */
export async function readStatus(response: Response, parse: Parse): Promise<unknown> {
  if (parse) return parse(response);
  const text = await readText(response);
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    if (response.status === 202) return undefined;
    throw error;
  }
}

/**
 * {@link readStatus} for the start answer. With `lenient` (the answer
 * names its monitor) a body that cannot be read is `undefined`; otherwise
 * a throw is a `ParseError` naming the answer.
 */
export async function readBody(response: Response, url: string, parse: Parse, lenient: boolean): Promise<unknown> {
  try {
    return await readStatus(response, parse);
  } catch (error) {
    if (lenient) return undefined;
    throw new ParseError(response, url, error);
  }
}
