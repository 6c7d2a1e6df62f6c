/** What an import did (or, dry, would do), per organization and kind, and every record it left out and why. */
export interface KindCounts {
  source: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
}

export interface Skip {
  organization: string;
  kind: string;
  id: string;
  reason: string;
}

export class Report {
  readonly counts = new Map<string, Map<string, KindCounts>>();
  readonly skipped: Skip[] = [];
  readonly warnings: Skip[] = [];
  /** Kinds Dispatch has that this importer does not carry, with how many rows the source holds. */
  readonly notImported = new Map<string, Map<string, number>>();

  constructor(
    readonly dryRun: boolean,
    readonly notCarried: readonly string[] = [],
  ) {}

  of(organization: string, kind: string): KindCounts {
    const kinds = this.counts.get(organization) ?? this.counts.set(organization, new Map()).get(organization)!;
    return kinds.get(kind) ?? kinds.set(kind, { source: 0, created: 0, updated: 0, unchanged: 0, skipped: 0 }).get(kind)!;
  }

  skip(organization: string, kind: string, id: string, reason: string) {
    this.of(organization, kind).skipped++;
    this.skipped.push({ organization, kind, id, reason });
  }

  warn(organization: string, kind: string, id: string, reason: string) {
    this.warnings.push({ organization, kind, id, reason });
  }

  total(field: keyof KindCounts) {
    let sum = 0;
    for (const kinds of this.counts.values()) for (const c of kinds.values()) sum += c[field];
    return sum;
  }

  toText(): string {
    const verb = this.dryRun ? 'would create' : 'created';
    const lines = [`Dispatch import${this.dryRun ? ' (dry run: nothing was written)' : ''}`];
    for (const [org, kinds] of this.counts) {
      lines.push(
        '',
        `Organization ${org}`,
        `  ${'kind'.padEnd(26)}${'source'.padStart(8)}${verb.padStart(14)}${'updated'.padStart(9)}${'unchanged'.padStart(11)}${'skipped'.padStart(9)}`,
      );
      for (const [kind, c] of [...kinds].filter(([, c]) => c.source > 0))
        lines.push(
          `  ${kind.padEnd(26)}${String(c.source).padStart(8)}${String(c.created).padStart(14)}${String(c.updated).padStart(9)}${String(c.unchanged).padStart(11)}${String(c.skipped).padStart(9)}`,
        );
      const missing = this.notImported.get(org);
      if (missing?.size) for (const [kind, n] of missing) lines.push(`  not imported yet: ${kind} (${n} in the source)`);
    }
    if (this.notCarried.length) lines.push('', `Not imported yet (no Firewatch counterpart): ${this.notCarried.join(', ')}`);
    lines.push('', this.skipped.length ? `Records that cannot be mapped (${this.skipped.length}):` : 'Every record could be mapped.');
    for (const s of this.skipped) lines.push(`  ${s.organization} ${s.kind} ${s.id}: ${s.reason}`);
    if (this.warnings.length) lines.push('', `Carried with a loss (${this.warnings.length}):`);
    for (const s of this.warnings) lines.push(`  ${s.organization} ${s.kind} ${s.id}: ${s.reason}`);
    return lines.join('\n');
  }
}
