// The console's alerts section: routes as a person may see them (kind, masked hint, counts), escaped.
import { describe, expect, it } from 'vitest';
import { alertsSection } from '../../admin/console/alerts-section.ts';

describe('console alerts section', () => {
  it('lists each route with its masked hint and counts', () => {
    const text = alertsSection('acme', [{ id: 'r-1', events: ['OFFER.ACCEPTED'], marketplaces: [], destination: 'owner-email', hint: "the record owner's email via smtp.example.com:587", sent: 3, waiting: 1, failed: 0 }]).text;
    expect(text).toContain('<td>r-1</td><td>OFFER.ACCEPTED</td><td>all</td><td>Record owner&#39;s email</td><td>the record owner&#39;s email via smtp.example.com:587</td><td>3</td><td>1</td><td>0</td>');
  });

  it('says how to add one when there is none', () => {
    expect(alertsSection('acme', []).text).toContain('crm-sync alerts acme --add --events OFFER.ACCEPTED --slack &lt;webhook URL&gt;');
  });
});
