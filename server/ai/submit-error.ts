/** A refusal the user reads as is (limits, unsupported files, unknown projects). */
export class SubmitError extends Error {
  constructor(
    message: string,
    readonly loc: string[] = [],
  ) {
    super(message);
  }
}
