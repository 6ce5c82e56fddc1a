// Keeping a long task's conversation within what models hold: once its text passes a budget,
// the oldest tool results are replaced by a note (the model can call the tool again). The
// system prompt, the task and the latest turns are never touched.
import type { ChatMessage } from '../../completion/chat.ts';

/** Characters of conversation (about 4 per token) before old tool results are left out. */
export const CONVERSATION_CHARS = 160_000;
/** The last messages always kept whole: the current turn and its results. */
const KEPT_TAIL = 6;
export const ELIDED = '[This result was left out to save room in the conversation. Call the tool again if you need it.]';

/** Elides the oldest tool results, in place, until the conversation fits `budget` characters (or nothing more can go). */
export function compactConversation(messages: ChatMessage[], budget = CONVERSATION_CHARS): void {
  let size = messages.reduce((sum, message) => sum + message.content.length, 0);
  for (let i = 2; i < messages.length - KEPT_TAIL && size > budget; i++) {
    const message = messages[i]!;
    if (message.role !== 'tool' || message.content === ELIDED || message.content.length <= ELIDED.length) continue;
    size -= message.content.length - ELIDED.length;
    messages[i] = { ...message, content: ELIDED };
  }
}
