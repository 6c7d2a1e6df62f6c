import { useCallback, useState } from 'react';
import type { Message } from './Conversation.js';
import type { Source } from './sources.js';
import { detailText, type Frame } from './socket.js';

/**
 * Chat state fed by socket frames: `chat_sources` sets the citations, `chat_token` appends text,
 * `chat_reset` drops a partial model answer (with its notice), `chat_done` settles the message.
 */
export function useChat() {
  const [messages, setMessages] = useState<Message[]>([]);
  const [chatId, setChatId] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const updateLast = (change: (m: Message) => Message) =>
    setMessages((list) => (list.length && list[list.length - 1]!.role === 'assistant' ? [...list.slice(0, -1), change(list[list.length - 1]!)] : list));

  const onFrame = useCallback((frame: Frame): boolean => {
    const data = frame.data ?? {};
    switch (frame.type) {
      case 'chat_sources':
        updateLast((m) => ({ ...m, sources: data.sources as Source[] }));
        return true;
      case 'chat_token':
        updateLast((m) => ({ ...m, text: m.text + String(data.text ?? '') }));
        return true;
      case 'chat_reset':
        updateLast((m) => ({ ...m, text: '', notice: String(data.notice ?? '') }));
        return true;
      case 'chat_done':
        updateLast((m) => ({
          ...m,
          id: Number(data.message_id),
          text: String(data.answer ?? m.text),
          sources: (data.sources as Source[]) ?? m.sources,
          notice: (data.notice as string | null) ?? m.notice,
          created_at: new Date().toISOString(),
        }));
        setChatId(String(data.chat_id));
        setBusy(false);
        return true;
      case 'error':
        if (data.request_type !== 'chat') return false;
        setError(detailText(data));
        setBusy(false);
        setMessages((list) => (list[list.length - 1]?.role === 'assistant' && !list[list.length - 1]!.text ? list.slice(0, -2) : list));
        return true;
    }
    return false;
  }, []);

  const ask = (send: (type: string, data: unknown) => string, projectId: number | null, text: string) => {
    const question = text.trim();
    if (!question) {
      setError('Type a question first.');
      return false;
    }
    setError(null);
    try {
      send('chat', { project_id: projectId, chat_id: chatId, text: question });
    } catch (err) {
      setError((err as Error).message);
      return false;
    }
    setMessages((list) => [...list, { role: 'user', text: question, sources: [] }, { role: 'assistant', text: '', sources: [] }]);
    setBusy(true);
    return true;
  };

  const reset = (next: { chatId?: string | null; messages?: Message[] } = {}) => {
    setChatId(next.chatId ?? null);
    setMessages(next.messages ?? []);
    setError(null);
    setBusy(false);
  };

  return { messages, setMessages, chatId, busy, error, setError, onFrame, ask, reset };
}
