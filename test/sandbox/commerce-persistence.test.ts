// Commerce sandbox with a journal (journalPath): write-backs through the API, the change driver and
// new records, then a sandbox started again on the journal holds exactly the same records, indexes
// and events, goes on issuing fresh ids, and refuses a journal written for other data. The journal is
// copied while the first sandbox still runs: what the file holds by then is all a SIGKILL would leave
// (sandboxes-crash.test.ts really kills a process).
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCommerceSandbox, type CommerceSandbox, type CommerceSandboxOptions } from '../../sandbox/commerce/index.ts';
import { manualClock, probeSandbox, type SandboxProbe } from '../../sandbox/commerce/testing.ts';

const KINDS = ['organizations', 'products', 'buyers', 'contacts', 'offers', 'entitlements', 'entitlementTerms', 'referrals', 'notificationEvents'];
const SETTINGS = { seed: 8, entitlements: 60 };

let dir: string;
const started: CommerceSandbox[] = [];
const clock = manualClock('2026-02-01T00:00:00.000Z');

async function start(options: CommerceSandboxOptions): Promise<{ sandbox: CommerceSandbox; probe: SandboxProbe }> {
  const sandbox = await startCommerceSandbox({ ...SETTINGS, now: clock.now, ...options });
  started.push(sandbox);
  return { sandbox, probe: probeSandbox(sandbox) };
}

/** Every record of every kind, as the sandbox holds them. */
async function everything(probe: SandboxProbe): Promise<Record<string, any[]>> {
  const all: Record<string, any[]> = {};
  for (const kind of KINDS) all[kind] = await probe.records(kind);
  return all;
}

/** What the indexes answer: offers by external id, and each entitlement's terms. */
async function indexed(probe: SandboxProbe, all: Record<string, any[]>) {
  const byExternalId = [];
  for (const offer of all.offers!.filter((o) => o.externalID)) byExternalId.push((await probe.api(`/org/org-1/offerExternalId/${offer.externalID}`)).json.id);
  const terms = [];
  for (const entitlement of all.entitlements!) terms.push((await probe.api(`/org/org-1/entitlement/${entitlement.id}/entitlementTerm`, { query: { limit: 100 } })).json);
  return { byExternalId, terms };
}

const api = async (probe: SandboxProbe, path: string, method: string, body?: unknown) => {
  const response = await probe.api(path, { method, body });
  expect(response.status, `${method} ${path}: ${response.text}`).toBe(200);
  return response.json;
};

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'commerce-journal-'));
});
afterEach(async () => {
  await Promise.all(started.splice(0).map((sandbox) => sandbox.stop()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('commerce sandbox: persistence (journalPath)', () => {
  it('comes back with every record, index and event as it was, and goes on with fresh ids', async () => {
    const journal = path.join(dir, 'same.jsonl');
    const { probe } = await start({ journalPath: journal });
    const generated = await everything(probe);
    const [offer, another, third] = generated.offers!.filter((o) => o.status === 'PENDING_ACCEPTANCE');
    const active = generated.entitlements!.find((e) => e.status === 'ACTIVE')!;

    // Write-backs and writes of every kind the API has.
    await api(probe, `/org/org-1/offer/${offer.id}/metaInfo`, 'PATCH', { crmAOpportunityId: '006ABCDEFGHIJKLMNO', customMetaInfo: { synced: true } });
    await api(probe, `/org/org-1/entitlement/${active.id}/metaInfo`, 'PATCH', { crmAOpportunityId: '006ABCDEFGHIJKLMNO' });
    await api(probe, `/org/org-1/entitlement/${active.id}/addon`, 'POST', { name: 'Extra seats', amount: 250.5 });
    const created = await api(probe, '/org/org-1/offer', 'POST', { name: 'Created offer', productID: offer.productID, metaInfo: { crmBDealId: 'deal-1' } });
    const draft = await api(probe, '/org/org-1/draftOffer', 'POST', { name: 'Draft', productID: offer.productID });
    await api(probe, '/org/org-1/draftOffer', 'POST', { id: draft.id, name: 'Draft v2', info: { currency: 'EUR' } });
    await api(probe, `/org/org-1/offer/${another.id}/cancel`, 'POST', {});
    await api(probe, `/org/org-1/offer/${third.id}/extendExpiryDate`, 'POST', { expireTime: '2027-01-01T00:00:00Z' });
    await api(probe, `/org/org-1/offer/${generated.offers![1].id}`, 'DELETE');
    const referral = await api(probe, '/org/org-1/cosell/referral', 'POST', { name: 'Co-sell', partner: 'cloudA', buyerID: generated.buyers![0].id, dealValue: 1000 });
    await api(probe, `/org/org-1/cosell/referral/${referral.id}`, 'PATCH', { stage: 'Qualified', status: 'SUBMITTED', description: null });
    await api(probe, '/org/org-1/cosell/referral/batchCreate', 'POST', { referrals: [{ name: 'B1', partner: 'cloudB', buyerID: generated.buyers![1].id }, { name: 'bad' }] });
    // The change driver: enough changes that every kind happens (renewals add terms, new offers get external ids).
    clock.advance(10);
    const { changes } = (await probe.control('POST', '/changes', { count: 300 })).json;
    expect(new Set(changes.map((c: any) => `${c.entityType} ${c.action}`))).toEqual(new Set(['ENTITLEMENT STATUS_CHANGED', 'ENTITLEMENT UPDATED', 'ENTITLEMENT RENEWED', 'OFFER STATUS_CHANGED', 'OFFER CREATED', 'REFERRAL CREATED', 'REFERRAL UPDATED']));

    const before = await everything(probe);
    expect(before.offers!.length).toBeGreaterThan(generated.offers!.length + 2);
    expect(before.entitlementTerms!.length).toBeGreaterThan(generated.entitlementTerms!.length);
    const indexesBefore = await indexed(probe, before);
    const copy = path.join(dir, 'same-copy.jsonl');
    copyFileSync(journal, copy); // what the file holds while the first sandbox still runs

    const second = await start({ journalPath: copy });
    expect(await everything(second.probe)).toEqual(before);
    expect(await indexed(second.probe, before)).toEqual(indexesBefore);

    // The same create within 60 s answers the first offer, as before the restart (§8).
    const repeated = await api(second.probe, '/org/org-1/offer', 'POST', { name: 'Created offer', productID: offer.productID, metaInfo: { crmBDealId: 'deal-1' } });
    expect(repeated).toEqual(created);

    // New records and events get ids nobody had, from the API and from the change driver.
    const fresh = await api(second.probe, '/org/org-1/offer', 'POST', { name: 'After restart', productID: offer.productID });
    expect(before.offers!.map((o) => o.id)).not.toContain(fresh.id);
    const more = (await second.probe.control('POST', '/changes', { count: 200 })).json.changes;
    expect(more).toHaveLength(200);
    const after = await everything(second.probe);
    for (const kind of KINDS) expect(new Set(after[kind]!.map((row) => row.id ?? row.eventID)).size, kind).toBe(after[kind]!.length);
    const eventIds = new Set(before.notificationEvents!.map((e) => e.eventID));
    expect(more.filter((c: any) => eventIds.has(c.eventID))).toEqual([]);
  });

  it('starts again from the generated data after POST /_sandbox/reset', async () => {
    const journal = path.join(dir, 'reset.jsonl');
    const { sandbox, probe } = await start({ journalPath: journal });
    const generated = await everything(probe);
    await probe.control('POST', '/changes', { count: 50 });
    await probe.control('POST', '/reset');
    expect(readFileSync(journal, 'utf8').trim().split('\n')).toHaveLength(1); // only the settings line
    await probe.control('POST', '/changes', { count: 5 });
    const before = await everything(probe);
    await sandbox.stop();

    const second = await start({ journalPath: journal });
    expect(await everything(second.probe)).toEqual(before);
    expect(before.notificationEvents!.length).toBe(generated.notificationEvents!.length + 5);
  });

  it('ignores a torn last line and refuses a journal of other data with a clear error', async () => {
    const journal = path.join(dir, 'torn.jsonl');
    const { sandbox, probe } = await start({ journalPath: journal });
    await probe.control('POST', '/changes', { count: 20 });
    const before = await everything(probe);
    await sandbox.stop();
    appendFileSync(journal, '{"rows":[["offers",{"id":"offer-0');

    const second = await start({ journalPath: journal });
    expect(await everything(second.probe)).toEqual(before);
    await second.probe.control('POST', '/changes', { count: 3 }); // appended after the cut-off tail, not onto it
    const after = await everything(second.probe);
    await second.sandbox.stop();
    expect(await everything((await start({ journalPath: journal })).probe)).toEqual(after);

    await expect(startCommerceSandbox({ ...SETTINGS, seed: 9, journalPath: journal })).rejects.toThrow(
      /torn\.jsonl holds changes to the data of a commerce sandbox with seed 8, entitlements 60, organizationId org-1, baseTime 2026-01-01T00:00:00\.000Z, not seed 9, entitlements 60/,
    );
    await expect(startCommerceSandbox({ seed: 8, entitlements: 61, journalPath: journal })).rejects.toThrow(/not seed 8, entitlements 61/);
    await expect(startCommerceSandbox({ ...SETTINGS, organizationId: 'org-2', journalPath: journal })).rejects.toThrow(/not seed 8, entitlements 60, organizationId org-2/);
  });

  it('sets a journal of an older generator aside when asked (the demo across an upgrade), and refuses it otherwise', async () => {
    const journal = path.join(dir, 'older.jsonl');
    const { sandbox, probe } = await start({ journalPath: journal });
    const generated = await everything(probe);
    await probe.control('POST', '/changes', { count: 5 });
    await sandbox.stop();
    // What an older version of the generator left: the same settings, a fingerprint of other data.
    const [header, ...rest] = readFileSync(journal, 'utf8').split('\n');
    const older = [JSON.stringify({ ...JSON.parse(header!), dataFingerprint: 'older-generator' }), ...rest].join('\n');
    writeFileSync(journal, older);

    await expect(startCommerceSandbox({ ...SETTINGS, now: clock.now, journalPath: journal })).rejects.toThrow(/older\.jsonl holds changes to data generated by another version of the commerce sandbox \(fingerprint older-generator, now /);

    const setAside: { renamedTo: string; why: string }[] = [];
    const fresh = await start({ journalPath: journal, setAsideStaleJournal: true, onJournalSetAside: (renamedTo, why) => setAside.push({ renamedTo, why }) });
    expect(await everything(fresh.probe)).toEqual(generated);
    expect(setAside).toHaveLength(1);
    expect(setAside[0]!.renamedTo.startsWith(`${journal}.older-`)).toBe(true);
    expect(setAside[0]!.renamedTo.slice(journal.length)).toMatch(/^\.older-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/);
    expect(setAside[0]!.why).toMatch(/fingerprint older-generator/);
    expect(readFileSync(setAside[0]!.renamedTo, 'utf8')).toBe(older);
    // The fresh journal keeps what happens from now on.
    await fresh.probe.control('POST', '/changes', { count: 2 });
    const after = await everything(fresh.probe);
    await fresh.sandbox.stop();
    expect(await everything((await start({ journalPath: journal })).probe)).toEqual(after);
  });
});
