/** A refusal the user reads as is (limits, unsupported files, unknown projects). */
export class SubmitError extends Error {
  constructor(
    message: string,
    readonly loc: string[] = [],
    /** The HTTP status an HTTP route answers with (413 for a file over the plan's size). */
    readonly status = 422,
  ) {
    super(message);
  }
}
