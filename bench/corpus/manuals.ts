/**
 * Real manuals nobody here wrote, as Debian ships them, with questions in an on-call engineer's
 * words (bench/corpus/*-questions.tsv, written by hand from the pages' subjects, not their
 * sentences), each with the pages that answer it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Manual {
  name: string;
  /** The Debian package that installs the pages. */
  aptPackage: string;
  dir: string;
  questionsFile: string;
  /** The manual's glossary page, loaded as the organization's terms and definitions (see glossary.ts). */
  glossary: string;
}

export interface ManualQuestion {
  question: string;
  /** File names (under the manual's dir) any of which answers the question. */
  pages: string[];
}

export const MANUALS: Manual[] = [
  { name: 'git (git-doc)', aptPackage: 'git-doc', dir: '/usr/share/doc/git-doc', questionsFile: 'git-questions.tsv', glossary: 'gitglossary.html' },
  { name: 'PostgreSQL 15 (postgresql-doc-15)', aptPackage: 'postgresql-doc-15', dir: '/usr/share/doc/postgresql-doc-15/html', questionsFile: 'postgresql-questions.tsv', glossary: 'glossary.html' },
];

const here = fileURLToPath(new URL('.', import.meta.url));

export function manualQuestions(m: Manual): ManualQuestion[] {
  return readFileSync(join(here, m.questionsFile), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'))
    .map((l) => {
      const [question, pages] = l.split('\t');
      if (!question || !pages) throw new Error(`${m.questionsFile}: a line needs a question, a tab and its pages: '${l}'`);
      return { question: question.trim(), pages: pages.trim().split(/\s+/) };
    });
}

/** The manual's HTML pages, or null when its package is not installed. */
export function manualPages(m: Manual): string[] | null {
  if (!existsSync(m.dir)) return null;
  const pages = readdirSync(m.dir).filter((f) => f.endsWith('.html')).sort();
  return pages.length ? pages : null;
}

/** Fails loudly (never skips) when a manual is missing, naming the command that installs it. */
export function missingManuals(): string | null {
  const missing = MANUALS.filter((m) => !manualPages(m));
  if (!missing.length) return null;
  return `The retrieval evaluation needs Debian's documentation packages. Run:\n  apt-get install -y ${missing.map((m) => m.aptPackage).join(' ')}`;
}
