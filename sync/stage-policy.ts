// Stages kept in step both ways under a declared owner. Pure: given what both sides hold now, what they
// held when we last agreed (and each side's own modification stamp then), decide what to write where.
// - owner 'commerce' / 'crm': that side's stage wins whenever the two differ.
// - owner 'latest': the side that changed since we last agreed wins; when both did, the one that
//   changed longer after our last agreement, measured on each side's own clock (never one side's clock
//   against the other's: only elapsed times are compared). A tie goes to the CRM.
// - neither side changed since we last agreed, yet the two are out of step (a write that did not take,
//   or stage tables changed since): nothing tells which side moved last, so the commerce side wins. The
//   referral is what the partner sees and acts on; bringing the CRM to it never undoes a partner's move,
//   and a seller who disagrees moves the CRM stage, which is then a change and wins as usual.
// Values already equivalent through the tables are left alone, so a stage written by the sync never
// comes back as news (echo) and two runs never flip a stage back and forth.

export type StageOwner = 'commerce' | 'crm' | 'latest';
export type StageTables = { toCommerce: Record<string, string>; toCrm: Record<string, string> };
export type Side = { stage: string | null; stamp: Date };
/** What we agreed on last time (stages in each side's own words) and each side's stamp then. */
export type Agreement = { commerceStage: string | null; crmStage: string | null; commerceStamp: Date; crmStamp: Date };

export type StageDecision =
  | { action: 'none'; agreed: { commerceStage: string | null; crmStage: string | null } }
  | { action: 'write-commerce'; stage: string; reason: string }
  | { action: 'write-crm'; stage: string; reason: string }
  | { action: 'unmapped'; side: 'commerce' | 'crm'; stage: string };

export function decideStage(input: { owner: StageOwner; tables: StageTables; commerce: Side; crm: Side; agreed?: Agreement; origin: 'commerce' | 'crm' }): StageDecision {
  const { owner, tables, commerce, crm, agreed } = input;
  // Equivalent either way through the tables: a toCrm entry that is not the inverse of toCommerce (saved before
  // tables were checked) then leaves the pair alone instead of writing the same CRM stage at every run.
  const inStep = (commerceStage: string | null, crmStage: string | null) => commerceStage !== null && crmStage !== null && (tables.toCommerce[crmStage] === commerceStage || tables.toCrm[commerceStage] === crmStage);
  if (inStep(commerce.stage, crm.stage) || (commerce.stage === null && crm.stage === null)) return { action: 'none', agreed: { commerceStage: commerce.stage, crmStage: crm.stage } };

  const commerceChanged = !agreed || commerce.stage !== agreed.commerceStage;
  const crmChanged = !agreed || crm.stage !== agreed.crmStage;
  let winner: 'commerce' | 'crm';
  let reason: string;
  if (owner !== 'latest') {
    winner = owner;
    reason = `the ${owner === 'crm' ? 'CRM' : 'commerce side'} owns the stage`;
  } else if (!agreed) {
    // First sight of the pair: the side it came from leads.
    winner = input.origin;
    reason = `first sync of the pair: the ${input.origin === 'crm' ? 'CRM' : 'commerce side'}, where it began, leads`;
  } else if (commerceChanged && !crmChanged) {
    winner = 'commerce';
    reason = 'only the commerce side changed the stage since the last sync';
  } else if (crmChanged && !commerceChanged) {
    winner = 'crm';
    reason = 'only the CRM changed the stage since the last sync';
  } else if (!crmChanged && !commerceChanged) {
    winner = 'commerce';
    reason = 'neither side changed the stage since the last sync, yet they are out of step: the referral (what the partner sees) leads';
  } else {
    const commerceElapsed = commerce.stamp.getTime() - agreed.commerceStamp.getTime();
    const crmElapsed = crm.stamp.getTime() - agreed.crmStamp.getTime();
    winner = commerceElapsed > crmElapsed ? 'commerce' : 'crm';
    reason = `both sides changed the stage; the ${winner === 'crm' ? 'CRM' : 'commerce side'} changed it later (${Math.round(Math.max(commerceElapsed, crmElapsed) / 1000)} s after the last sync, by its own clock)`;
  }
  if (winner === 'crm') {
    if (crm.stage === null) return { action: 'none', agreed: { commerceStage: commerce.stage, crmStage: crm.stage } };
    const stage = tables.toCommerce[crm.stage];
    return stage ? { action: 'write-commerce', stage, reason } : { action: 'unmapped', side: 'crm', stage: crm.stage };
  }
  if (commerce.stage === null) return { action: 'none', agreed: { commerceStage: commerce.stage, crmStage: crm.stage } };
  const stage = tables.toCrm[commerce.stage];
  return stage ? { action: 'write-crm', stage, reason } : { action: 'unmapped', side: 'commerce', stage: commerce.stage };
}

/** When a refused stage change is tried again: 1 minute, then doubling, at most an hour. */
export function nextTry(attempts: number, now: Date): Date {
  return new Date(now.getTime() + Math.min(3600, 60 * 2 ** Math.max(0, attempts - 1)) * 1000);
}
