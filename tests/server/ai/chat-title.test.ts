import t from 'tap';
import { chatTitle } from '../../../server/ai/chat.js';

t.test('a chat title is the question, cut after a whole word with an ellipsis', async (t) => {
  t.equal(chatTitle('  How do we fail over\nRedis?  '), 'How do we fail over Redis?', 'short: whitespace folded, nothing cut');
  const long = 'What command do I run to trigger a Redis failover by hand, and how long will writes fail during it?';
  const title = chatTitle(long);
  t.equal(title, 'What command do I run to trigger a Redis failover by hand, and how long will…');
  t.ok(title.length <= 80);
  t.ok(long.startsWith(title.slice(0, -1)), 'the words kept are whole');
  const url = `https://example.com/${'x'.repeat(120)}`;
  t.equal(chatTitle(url).length, 80, 'one endless word is cut where it must be');
});
