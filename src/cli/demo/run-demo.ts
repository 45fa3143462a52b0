export async function runDemo(_a: readonly string[], _io: unknown): Promise<number> { return 0; }
