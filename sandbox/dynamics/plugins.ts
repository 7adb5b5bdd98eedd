// Synchronous plug-ins that refuse an Update (tests only): what an organisation's own business logic does
// when it cancels a save. A plug-in registered on Update of a table throws InvalidPluginExecutionException
// with a message for the user; Dataverse answers the caller with that message and the IsvAborted error
// code, 0x80040265 (docs/crm-wire-behaviour.md, "Plug-ins refusing a save"). Here a rule names the table,
// the rows it refuses (all when none are named) and the message.
import { DataverseError } from './errors.ts';

export type RefusingPlugin = { table: string; ids?: string[]; message: string };

/** IsvAborted: the code a save cancelled by a plug-in's InvalidPluginExecutionException answers with. */
export const ISV_ABORTED = '0x80040265';

export function createPlugins() {
  let rules: RefusingPlugin[] = [];
  return {
    add(rule: RefusingPlugin): RefusingPlugin[] {
      rules = [...rules, { table: rule.table, message: rule.message, ...(rule.ids && { ids: rule.ids.map((id) => id.toLowerCase()) }) }];
      return rules;
    },
    clear() {
      rules = [];
    },
    list: () => rules,
    /** Throws the plug-in's refusal when one is registered on Update of this row. */
    onUpdate(table: string, id: string): void {
      const rule = rules.find((candidate) => candidate.table === table && (!candidate.ids || candidate.ids.includes(id.toLowerCase())));
      if (rule) throw new DataverseError(400, ISV_ABORTED, rule.message);
    },
  };
}
