import { PDFDocument, StandardFonts, rgb, type PDFFont } from 'pdf-lib';
import { blocks } from './markdown.js';

/** Text the standard PDF fonts can draw (WinAnsi): other characters become '?', never a failed export. */
const drawable = (s: string) => s.replace(/[^\x20-\x7E\u00A0-\u00FF\u2013\u2014\u2018\u2019\u201C\u201D\u2022\u2026\u20AC]/g, '?');

function wrap(text: string, font: PDFFont, size: number, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    const next = line ? `${line} ${word}` : word;
    if (font.widthOfTextAtSize(next, size) > width && line) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines;
}

/** The document's Markdown laid out as an A4 PDF: headings in bold, list items with bullets, pages as needed. */
export async function markdownPdf(title: string, markdown: string): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.setTitle(title);
  pdf.setCreator('Firewatch');
  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const [W, H, M] = [595.28, 841.89, 56];
  let page = pdf.addPage([W, H]);
  let y = H - M;
  const write = (text: string, font: PDFFont, size: number, indent = 0, gap = 4) => {
    for (const line of wrap(drawable(text.replace(/\*\*|`/g, '')), font, size, W - 2 * M - indent)) {
      if (y - size < M) {
        page = pdf.addPage([W, H]);
        y = H - M;
      }
      page.drawText(line, { x: M + indent, y: y - size, size, font, color: rgb(0.1, 0.1, 0.1) });
      y -= size + 3;
    }
    y -= gap;
  };
  for (const b of blocks(markdown)) {
    if (b.kind === 'heading') write(b.text, bold, [18, 14, 12, 11, 11, 11][b.level - 1]!, 0, 6);
    else if (b.kind === 'list')
      for (const item of b.items) write(`• ${item.replace(/^\[ \]\s*/, '[ ] ').replace(/^\[[xX]\]\s*/, '[x] ')}`, regular, 10.5, 12, 2);
    else write(b.text, regular, 10.5);
  }
  return pdf.save();
}

/** Hands the browser a file to save. */
export function download(name: string, data: BlobPart, type: string) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
