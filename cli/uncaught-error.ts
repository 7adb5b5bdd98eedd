// The last word on an error no command caught (bin/crm-sync.ts): one line, never a stack, and the exit
// code an ExitError carries (1 for anything else). The message is redacted first: an error from a
// library may quote a URL or header with a secret in it. Under --json it is also {"error": ...} on stdout.
import { redactText } from '../store/redact.ts';
import { EXIT, ExitError } from './exit-codes.ts';
import { jsonWanted, reportError } from './output.ts';

/** Reports `error` in one line and answers the exit code to end with. */
export function reportUncaught(error: unknown): number {
  const message = error instanceof Error ? error.message : String(error);
  // A message of several lines (a ZodError's dump, a wrapped cause) is folded into one.
  reportError(redactText(message).trim().replace(/\s*\n\s*/g, '; ') || 'crm-sync failed', jsonWanted());
  return error instanceof ExitError ? error.exitCode : EXIT.failed;
}
