/**
 * Factories for the records tests start from. A factory's call that does not answer 201 throws with
 * what was refused: it is a precondition of the test, not one of its assertions.
 */
export interface Answer {
  status: number;
  // A test reads the answer's fields freely.
  body: any;
}

/** The created record's body, or an error naming what could not be created. */
export function created(what: string, res: Answer) {
  if (res.status !== 201) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Factories bound to one caller (`api` as the tests build it: method, path under the organization, body). */
export function factoriesFor<P>(api: (method: string, path: string, payload?: P) => Promise<Answer>) {
  const make = async (path: string, payload: P) => created(path, await api('POST', path, payload));
  return {
    /** POST `path` and answer the created record. */
    make,
    /** POST `path` and answer the created record's id. */
    makeId: async (path: string, payload: P) => (await make(path, payload)).id as number,
  };
}
