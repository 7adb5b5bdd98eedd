// Runs as a child process (see workflow-bundle.ts): bundles the workflow code with webpack and sends
// the code back over IPC. Webpack's warnings and errors go back too, to be logged by the parent.
import { bundleWorkflowCode } from '@temporalio/worker';

const messages: { level: 'warn' | 'error'; message: string }[] = [];
const quiet = () => undefined;
const logger = {
  trace: quiet,
  debug: quiet,
  info: quiet,
  warn: (message: string) => messages.push({ level: 'warn', message }),
  error: (message: string) => messages.push({ level: 'error', message }),
  log: quiet,
};
const workflowsPath = process.argv[2]!;
// Every workflow's log lines carry its connection id (workflows/log-attributes.ts).
const workflowInterceptorModules = [new URL('../workflows/log-attributes.ts', import.meta.url).pathname];
const { code } = await bundleWorkflowCode({ workflowsPath, logger, workflowInterceptorModules });
process.send!({ code, messages }, () => process.disconnect());
