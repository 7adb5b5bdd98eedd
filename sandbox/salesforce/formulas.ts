// Formula fields (read-only, computed when read, as Salesforce computes them at query time). The sandbox
// has no formula engine: it evaluates the formulas the project declares (mappings/salesforce/schema.ts),
// matched by their text, and refuses any other at creation, saying so, rather than storing a field that
// would always read null.
import type { SandboxField } from './schema.ts';

type Row = Record<string, unknown>;

const DAY_MS = 86_400_000;

/** Formula text (whitespace ignored) -> its value for a record at an instant. */
const FORMULAS: Record<string, (record: Row, now: Date) => unknown> = {
  // Days until the entitlement ends: a date-time minus a date-time is a number of days in Salesforce formulas.
  'IF(ISBLANK(End_Date__c),NULL,FLOOR(End_Date__c-NOW()))': (record, now) => {
    const end = record.End_Date__c;
    if (end === null || end === undefined || end === '') return null;
    const ms = Date.parse(String(end));
    return Number.isNaN(ms) ? null : Math.floor((ms - now.getTime()) / DAY_MS);
  },
};

const normalized = (formula: string) => formula.replace(/\s+/g, '');

export const isKnownFormula = (formula: string) => normalized(formula) in FORMULAS;

export const KNOWN_FORMULAS = Object.keys(FORMULAS);

/** The value a field shows on a record: the stored one, or a formula field's computed one. */
export function fieldValue(field: SandboxField, record: Row, now: Date): unknown {
  if (!field.formula) return record[field.name] ?? null;
  return FORMULAS[normalized(field.formula)]?.(record, now) ?? null;
}
