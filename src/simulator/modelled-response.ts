/** The headers of a {@link ModelledResponse}: read by name, case-insensitively, as with `Headers`. */
export class ModelledHeaders {
  /** Names lower-cased. */
  readonly #fields: Record<string, string>;

  constructor(fields: Record<string, string>) {
    this.#fields = fields;
  }

  get(name: string): string | null {
    return this.#fields[name.toLowerCase()] ?? null;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  forEach(callback: (value: string, name: string, headers: ModelledHeaders) => void): void {
    for (const name of Object.keys(this.#fields).sort()) callback(this.#fields[name]!, name, this);
  }

  *entries(): IterableIterator<[string, string]> {
    for (const name of Object.keys(this.#fields).sort()) yield [name, this.#fields[name]!];
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

const unusable = (): Promise<never> => Promise.reject(new TypeError('Body is unusable: Body has already been read'));

/**
 * The answer the simulated network hands a client: what a `Response` offers
 * a poller (`status`, `ok`, `headers.get`, `text()`, `json()`, `body`,
 * `bodyUsed`), without undici's cost. A real `Response` with a 200-byte
 * body costs about 50 µs to build and read, more than the poll that reads
 * it; a million of them were the largest part of a 100,000-client run.
 * pollite's code takes it as it takes any `Response` (its checks are on
 * `status` and `headers.get`); a body is a real `ReadableStream`, made
 * only when someone asks for `body`.
 */
export class ModelledResponse {
  readonly status: number;
  readonly statusText = '';
  readonly headers: ModelledHeaders;
  readonly url = '';
  readonly redirected = false;
  readonly type = 'basic';
  #text: string | null;
  #used = false;
  #stream: ReadableStream<Uint8Array> | null | undefined;

  /** `headers` as a record (names lower-cased), or a `ModelledHeaders` to share: they are read-only. */
  constructor(status: number, text: string | null, headers: Record<string, string> | ModelledHeaders) {
    this.status = status;
    this.#text = text;
    this.headers = headers instanceof ModelledHeaders ? headers : new ModelledHeaders(headers);
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** True once `text()` or `json()` was called, or the body's stream was taken for reading. */
  get bodyUsed(): boolean {
    return this.#used || this.#stream?.locked === true;
  }

  /** The body as a stream (`null` without one), made on first access. */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.#stream === undefined) {
      const text = this.#text;
      this.#stream =
        text === null
          ? null
          : new ReadableStream<Uint8Array>({
              start(controller) {
                controller.enqueue(new TextEncoder().encode(text));
                controller.close();
              },
            });
    }
    return this.#stream;
  }

  text(): Promise<string> {
    if (this.bodyUsed) return unusable();
    this.#used = true;
    return Promise.resolve(this.#text ?? '');
  }

  json(): Promise<unknown> {
    return this.text().then((text) => JSON.parse(text) as unknown);
  }
}
