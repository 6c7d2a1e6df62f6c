import JSZip from 'jszip';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** A real PDF with one text block per page (pdf-lib), so extraction runs through pdf.js. */
export async function makePdf(pages: string[][]): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const lines of pages) {
    const page = doc.addPage([600, 800]);
    lines.forEach((line, i) => page.drawText(line, { x: 40, y: 750 - i * 18, size: 11, font }));
  }
  return Buffer.from(await doc.save());
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A minimal Word document: headings use the built-in Heading1/Heading2 styles mammoth maps to h1/h2. */
export async function makeDocx(blocks: { heading?: 1 | 2; text: string }[]): Promise<Buffer> {
  const zip = new JSZip();
  zip.file(
    '[Content_Types].xml',
    `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
  );
  zip.file(
    '_rels/.rels',
    `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
  );
  const body = blocks
    .map(
      (b) => `<w:p>${b.heading ? `<w:pPr><w:pStyle w:val="Heading${b.heading}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${esc(b.text)}</w:t></w:r></w:p>`,
    )
    .join('');
  zip.file(
    'word/document.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`,
  );
  return zip.generateAsync({ type: 'nodebuffer' });
}
