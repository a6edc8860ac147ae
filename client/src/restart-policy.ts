// When the server dies, restart it: up to 4 times within 3 minutes, as
// vscode-languageclient's own policy does. Its default handler also shuts the
// client down on a write error with no count (EPIPE into a server that was
// just killed), which races the close event and leaves the editor without a
// server; here an error only continues, and the close decides.
import { CloseAction, ErrorAction } from 'vscode-languageclient';
import type { CloseHandlerResult, ErrorHandler, ErrorHandlerResult } from 'vscode-languageclient';

const MAX_RESTARTS = 4;
const WINDOW_MS = 3 * 60 * 1000;

export function restartPolicy(name: string, now: () => number = Date.now): ErrorHandler {
  const restarts: number[] = [];
  return {
    error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue }),
    closed: (): CloseHandlerResult => {
      const at = now();
      while (restarts.length > 0 && at - restarts[0] > WINDOW_MS) restarts.shift();
      if (restarts.length >= MAX_RESTARTS + 1) {
        return {
          action: CloseAction.DoNotRestart,
          message: `The ${name} server stopped ${restarts.length} times in the last 3 minutes and is not restarted. Run "Flux Job Guard: Restart Server" after reading its output.`,
        };
      }
      restarts.push(at);
      return { action: CloseAction.Restart };
    },
  };
}
