import { readFileSync, readdirSync } from 'node:fs';
import t from 'tap';
import { extract, fileKind, markdownSections, pdfSections, type Section } from '../../../server/ai/extract.js';
import { chunkSections } from '../../../server/ai/chunk.js';
import { makePdf } from './fixtures.js';

/**
 * Issue 40, answers worth reading: the passages an answer quotes start and end on sentence
 * boundaries, Markdown's heading underlines and rules never show as "-----", and a real PDF with
 * accents and two columns (Chromium's print of files/two-columns-accents.html) extracts to its words.
 */
const file = (name: string) => readFileSync(new URL(`./files/${name}`, import.meta.url));
const SENTENCE_END = /[.!?]["'\u201d\u2019)\]]*$/;

t.test('a PDF with accents and two columns extracts to the right words, column by column', async (t) => {
  const text = (await pdfSections(file('two-columns-accents.pdf'))).map((s) => s.text).join(' ');
  const inOrder = [
    'Räte und Schichten',
    'Die Ebenen der Anwendung heißen Schichten.',
    'Jede Schicht prüft ihre Eingaben, bevor sie weitergibt.',
    'Le café est servi à côté de la réception, près de l’escalier où les employés se réunissent chaque matin.',
    'The magic attribute. This sets the priority of a rule; the default priority value is 50, and the maximum is 100.',
    'Müller’s façade naïvely coöperates with the résumé.',
    'Zweite Spalte beginnt hier.',
    'Über die Brücke fährt der Zug nach Zürich, während die Kühe auf der Weide grasen.',
    'Señor Núñez llegó mañana a la estación con su pingüino.',
    'Élodie a écrit la dernière phrase de ce document, qui se termine ici.',
  ];
  let from = 0;
  for (const sentence of inOrder) {
    const at = text.indexOf(sentence, from);
    t.ok(at >= 0, `whole and in reading order: ${sentence}`);
    if (at >= 0) from = at + sentence.length;
  }
});

t.test("a PDF's running header and page numbers are not part of its passages", async (t) => {
  const pdf = await makePdf([1, 2, 3].map((n) => ['Firewatch handbook', `Step ${n} of the failover is written here.`, String(n)]));
  const sections = await pdfSections(pdf);
  t.same(
    sections.map((s) => [s.place.page, s.text]),
    [1, 2, 3].map((n) => [n, `Step ${n} of the failover is written here.`]),
  );
});

t.test("Markdown's heading underlines and rules are structure, not text", async (t) => {
  const sections = markdownSections(
    'Reporting\n=========\n\nUse the tracker.\n\nWhere to send\n-------------\n\nMail the list.\n\n***\n\nThen wait.\n\n---\n\nThanks.\n',
  );
  t.same(sections, [
    { text: 'Use the tracker.', place: { heading: 'Reporting' } },
    { text: 'Mail the list.', place: { heading: 'Reporting › Where to send' } },
    { text: 'Then wait.', place: { heading: 'Reporting › Where to send' } },
    { text: 'Thanks.', place: { heading: 'Reporting › Where to send' } },
  ]);
});

t.test('across the test corpus, every passage starts and ends on a sentence boundary', async (t) => {
  const corpus: [string, Section[]][] = [['two-columns-accents.pdf', await pdfSections(file('two-columns-accents.pdf'))]];
  for (const name of readdirSync(new URL('./pages/', import.meta.url)))
    corpus.push([name, await extract(fileKind(name)!, readFileSync(new URL(`./pages/${name}`, import.meta.url)))]);
  corpus.push([
    'inline.md',
    markdownSections(
      'Load /usr/share/mime/text/html.xml, then www.freedesktop.org/wiki says why. Version 1.3 is current. ' +
        'A passage ends here! Does it? "It does." (Really.) The end.',
    ),
  ]);
  for (const [name, sections] of corpus) {
    for (const section of sections) {
      // Small passages, so every paragraph is split at its sentences.
      const parts = chunkSections([section], { maxWords: 12 }).map((c) => c.text);
      t.equal(parts.join(' '), section.text.replace(/\s+/g, ' '), `${name}: the passages are the paragraph, nothing added or lost`);
      for (const part of parts.slice(0, -1)) t.match(part, SENTENCE_END, `${name}: ends a sentence: …${part.slice(-40)}`);
      for (const part of parts.slice(1)) t.notMatch(part, /^[.,;:!?)\]]/, `${name}: starts a sentence: ${part.slice(0, 40)}…`);
    }
  }
});
