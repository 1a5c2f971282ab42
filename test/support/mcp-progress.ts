/**
 * A tool call that keeps every progress notification. The SDK forgets a call's `onprogress` as soon as
 * it reads the result, so on a busy machine progress that arrives in the same read as the result is
 * dropped (tests then saw `[]`). A client-wide handler keeps it all; calls made through this helper on
 * one client must not overlap, since everything the handler hears is counted for the current call.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ProgressNotificationSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';

export async function callToolWithProgress(client: Client, name: string, args: Record<string, unknown>): Promise<{ result: CallToolResult; progress: Progress[] }> {
  const progress: Progress[] = [];
  client.setNotificationHandler(ProgressNotificationSchema, (notification) => {
    const { progressToken: _token, ...rest } = notification.params;
    progress.push(rest);
  });
  // onprogress still asks the server for progress (it puts a progressToken in the request).
  const result = (await client.callTool({ name, arguments: args }, CallToolResultSchema, { onprogress: () => undefined })) as CallToolResult;
  return { result, progress };
}
