// Dynamics sandbox (issue #27 gaps): PublishXml as Dataverse takes it (docs/crm-wire-behaviour.md,
// "Publish afterwards"): {ParameterXml: "<importexportxml><entities><entity>name</entity>...</entities></importexportxml>"}
// publishes the tables named and answers 204; a table that does not exist, or a ParameterXml that is not
// an importexportxml document, is refused. The handler is called directly here: api.ts routes
// `POST PublishXml` to it.
import { describe, expect, it } from 'vitest';
import { DataverseError } from '../../sandbox/dynamics/errors.ts';
import type { ApiRequest } from '../../sandbox/dynamics/http.ts';
import { publishXml } from '../../sandbox/dynamics/metadata.ts';

/** A request whose store knows the tables named. */
const request = (body: unknown, tables: string[]) =>
  ({ method: 'POST', path: 'PublishXml', query: '', headers: {}, base: 'http://sandbox/api/data/v9.2/', body: JSON.stringify(body), state: { store: { entity: (name: string) => (tables.includes(name) ? { LogicalName: name } : undefined) } } }) as unknown as ApiRequest;
const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    if (error instanceof DataverseError) return { status: error.status, body: error.body() as { error: { message: string } } };
    throw error;
  }
  throw new Error('not refused');
};

describe('Dynamics sandbox: PublishXml', () => {
  it('publishes the tables named, in any case, and answers 204', () => {
    const xml = '<importexportxml><entities><entity>ccs_marketplaceentitlement</entity><entity> CCS_CosellReferral </entity></entities></importexportxml>';
    expect(publishXml(request({ ParameterXml: xml }, ['ccs_marketplaceentitlement', 'ccs_cosellreferral']))).toEqual({ status: 204 });
  });

  it('refuses a table that does not exist, naming it', () => {
    const refused = refusal(() => publishXml(request({ ParameterXml: "<importexportxml><entities><entity>ccs_o'brien</entity></entities></importexportxml>" }, [])));
    expect(refused.status).toBe(404);
    expect(refused.body.error.message).toContain("ccs_o'brien");
  });

  it('refuses a ParameterXml that is not an importexportxml document', () => {
    for (const body of [{}, { ParameterXml: '<entities><entity>account</entity></entities>' }, { ParameterXml: 42 }]) {
      expect(refusal(() => publishXml(request(body, ['account']))).status).toBe(400);
    }
  });
});
