import { readFileSync } from 'node:fs';
import t from 'tap';
import { htmlSections } from '../../../server/ai/extract.js';

/**
 * Navigation is not text of the page: DocBook's "Prev Up Next / Home" bars (PostgreSQL's manual),
 * <nav> and role=navigation menus would otherwise be the first passage of every page.
 */

const texts = (html: string) => htmlSections(html).map((s) => s.text);

t.test('a recorded PostgreSQL 15 manual page (DocBook) loses its navigation header and footer', async (t) => {
  const html = readFileSync(new URL('./pages/postgresql-15-tutorial-update.html', import.meta.url), 'utf8');
  const sections = htmlSections(html);
  const all = sections.map((s) => s.text).join('\n');
  t.match(sections[0], { text: /^You can update existing rows using the UPDATE command\./, place: { heading: '2.8. Updates' } }, 'the page starts at its text');
  t.match(all, /UPDATE weather SET temp_hi = temp_hi - 2/, 'the example is kept');
  t.notMatch(all, /\bPrev\b|\bNext\b|\bHome\b|Aggregate Functions|Deletions|Chapter 2/, 'no navigation link or neighbouring title');
});

t.test('<nav>, role=navigation and nested elements inside them are left out; the rest is kept', async (t) => {
  const html = `<html><body>
    <nav><ul><li><a href="/">Home</a></li><li><a href="/docs">Docs</a></li></ul></nav>
    <div role="navigation"><div><p>Sidebar menu</p></div><p>More menu</p></div>
    <table class="navheader wide" summary="x"><tr><td>Prev</td></tr></table>
    <h1>Kafka</h1><div><div><p>Consumers commit their offsets.</p></div></div>
    <table summary="Navigation footer"><tr><td>Next page</td></tr></table>
    <p>After the footer.</p></body></html>`;
  t.same(texts(html), ['Consumers commit their offsets.', 'After the footer.']);
  t.same(texts('<nav><nav>inner</nav>still nav</nav><p>kept</p>'), ['kept'], 'a nav inside a nav');
});
