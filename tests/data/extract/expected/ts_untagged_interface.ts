interface Options {
  retries: number;
  timeoutMs: number;
}

export async function withRetry<T>(fn: () => Promise<T>, opts: Options): Promise<T> {
  let lastError: unknown;
  for (let attempt = 0; attempt <= opts.retries; attempt++) {
    try {
      return await fn();
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}
