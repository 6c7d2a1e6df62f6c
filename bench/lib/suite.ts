/** A bench suite: sets up its own data, measures, prints a table, and says whether its targets held. */
export interface Suite {
  name: string;
  /** One line shown before the suite runs. */
  description: string;
  run(): Promise<{ passed: boolean }>;
}
