import t from 'tap';
import { parseGlossary } from '../../../bench/corpus/glossary.js';

// The retrieval bench loads a manual's glossary page (BENCH_GLOSSARY=1) as terms and definitions.
t.test('a glossary page becomes terms with their definitions', async (t) => {
  const html = `<html><body><h1>Glossary</h1>
    <dl>
      <dt><a id="def_stash"></a>stash entry</dt>
      <dd><p>An object used to <em>temporarily</em> store the contents of a dirty working directory.</p></dd>
      <dt>PITR</dt><dt>point-in-time recovery</dt>
      <dd><p>Restoring a database to a past moment &amp; replaying WAL.</p>
        <dl><dt>See also</dt><dd>WAL archiving</dd></dl>
        <p>Needs a base backup.</p></dd>
      <dt>empty</dt><dd></dd>
    </dl></body></html>`;
  t.same(parseGlossary(html), [
    { terms: ['stash entry'], definition: 'An object used to temporarily store the contents of a dirty working directory.' },
    {
      terms: ['PITR', 'point-in-time recovery'],
      definition: 'Restoring a database to a past moment & replaying WAL. See also WAL archiving Needs a base backup.',
    },
  ]);
});
