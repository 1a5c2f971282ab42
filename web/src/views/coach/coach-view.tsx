/**
 * The deck coach (the conversation kind), as its spec draws it: format, window sliders, an archetype
 * dropdown ordered by the meta, a deck box, the chat streamed over SSE with tool-call chips, a state
 * bar, and the list of your conversations to resume (#/coach/<conversationId>).
 */
import { useState } from 'preact/hooks';
import { ErrorNote } from '../../components/error-note.js';
import { useAsync } from '../../components/use-async.js';
import type { ViewProps } from '../../main.js';
import { navigate } from '../../route.js';
import { deleteConversation, listConversations, loadArchetypes, loadFormats, startConversation, type ConversationSummary } from './coach-api.js';
import { ContextControls, RESTING_DAYS } from './context-controls.js';
import { ConversationList } from './conversation-list.js';
import { MessageForm } from './message-form.js';
import { StateBar } from './state-bar.js';
import { Transcript } from './transcript.js';
import { useChatContext } from './use-chat-context.js';
import { useConversation } from './use-conversation.js';
import { useSettled } from './use-settled.js';

const NO_ARCHETYPES = Promise.resolve([]);

export function CoachView({ parts }: ViewProps) {
  const conversations = useAsync((signal) => listConversations(signal), []);
  const conversation = useConversation(parts[0], conversations.reload);
  const context = useChatContext(conversation.state, conversation.generation);
  const formats = useAsync((signal) => loadFormats(signal), []);
  const format = context.values.format;
  const archetypeDays = useSettled(context.values.currentDays ?? RESTING_DAYS, 300);
  const archetypes = useAsync((signal) => (format ? loadArchetypes(format, archetypeDays, signal) : NO_ARCHETYPES), [format, archetypeDays]);
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<unknown>(undefined);

  const start = async () => {
    setStarting(true);
    setError(undefined);
    try {
      const welcome = await startConversation();
      conversations.reload();
      navigate('coach', welcome.conversation_id);
    } catch (failure) {
      setError(failure);
    } finally {
      setStarting(false);
    }
  };

  const remove = async (row: ConversationSummary) => {
    if (!confirm(`Delete the conversation "${row.title}"? Its history and deck are deleted.`)) return;
    setError(undefined);
    try {
      await deleteConversation(row.conversation_id);
      conversations.reload();
      if (row.conversation_id === conversation.id) navigate('coach');
    } catch (failure) {
      setError(failure);
    }
  };

  return (
    <>
      <h1>Deck coach</h1>
      <ErrorNote error={error} />
      <div class="coach-layout">
        <ConversationList conversations={conversations} openId={conversation.id} starting={starting} onStart={start} onDelete={remove} />
        <div class="coach-chat">
          <ContextControls context={context} state={conversation.state} formats={formats} archetypes={archetypes} archetypeDays={archetypeDays} />
          <StateBar state={conversation.state} />
          <ErrorNote error={conversation.error} />
          {conversation.loading ? <p role="status">Loading the conversation…</p> : <Transcript history={conversation.history} turns={conversation.turns} />}
          <MessageForm running={conversation.running} streamStatus={conversation.running ? conversation.streamStatus : undefined} onSend={(message) => conversation.send(message, context.take())} />
        </div>
      </div>
    </>
  );
}
