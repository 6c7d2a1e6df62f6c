/** A passage with its «matches» as <mark>. */
export function Highlighted({ text }: { text: string }) {
  const parts = text.split(/«|»/);
  return <>{parts.map((p, i) => (i % 2 ? <mark key={i}>{p}</mark> : <span key={i}>{p}</span>))}</>;
}
