/**
 * Durations and money as people read them: "2 min", "3 h 10 min", "2 d 4 h"; dollars to the cent.
 * Dashboards and the incident's cost line use them (spec §9 leaves other numbers at 6 significant digits).
 */
export function duration(hours: number | null | undefined): string | null {
  if (hours === null || hours === undefined || !Number.isFinite(hours)) return null;
  const minutes = Math.round(hours * 60);
  if (minutes < 60) return `${minutes} min`;
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  // Past two days the minutes no longer matter; days and hours do.
  if (h >= 48) return `${Math.floor(h / 24)} d${h % 24 ? ` ${h % 24} h` : ''}`;
  return `${h} h${m ? ` ${m} min` : ''}`;
}

export const money = (n: number | null | undefined) =>
  n === null || n === undefined ? null : n.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
