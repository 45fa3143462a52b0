/** The error `fn` throws (or the promise it returns rejects with); fails when there is none. */
export async function thrown(fn: () => unknown): Promise<Error> {
  try {
    await fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('Expected a throw, got none');
}
