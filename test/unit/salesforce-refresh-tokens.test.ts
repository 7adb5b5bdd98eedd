// The renewal rule (crm/salesforce/refresh-tokens.ts): renew with the stored token, store a rotated one
// in place of the one used, and after invalid_grant try once more only when the stored token changed
// meanwhile (saved by someone who did not take the lock); the in-memory vault runs renewals in turn.
import { describe, expect, it } from 'vitest';
import { memoryRefreshTokenVault, renewThroughVault, type RefreshAnswer, type RefreshTokenVault } from '../../crm/salesforce/refresh-tokens.ts';

const answer = (refreshToken?: string): RefreshAnswer => ({ access_token: 'at', instance_url: 'https://x.my.salesforce.com', id: 'https://login/id/00D/005', ...(refreshToken && { refresh_token: refreshToken }) });
const invalidGrant = () => Object.assign(new Error('expired access/refresh token'), { name: 'invalid_grant' });

/** A vault whose reads answer `reads` in turn (the last one repeated); saves are noted. */
function scriptedVault(reads: (string | undefined)[]) {
  const saves: [string, string][] = [];
  let next = 0;
  const vault: RefreshTokenVault = {
    exclusive: (work) =>
      work({
        read: async () => reads[Math.min(next++, reads.length - 1)],
        save: async (used, token) => {
          saves.push([used, token]);
        },
      }),
  };
  return { vault, saves };
}

describe('refresh token renewal', () => {
  it('renews with the stored token, not the one the session began with, and stores the rotated one in its place', async () => {
    const { vault, saves } = scriptedVault(['stored']);
    const used: string[] = [];
    await renewThroughVault(vault, 'held', async (token) => (used.push(token), answer('rotated')));
    expect(used).toEqual(['stored']);
    expect(saves).toEqual([['stored', 'rotated']]);
  });

  it('stores nothing when the answer hands no new token (rotation off)', async () => {
    const { vault, saves } = scriptedVault([undefined]);
    await renewThroughVault(vault, 'held', async () => answer());
    expect(saves).toEqual([]);
  });

  it('after invalid_grant tries once more with a token stored meanwhile', async () => {
    const { vault, saves } = scriptedVault(['old', 'new']);
    const used: string[] = [];
    await renewThroughVault(vault, 'held', async (token) => {
      used.push(token);
      if (token === 'old') throw invalidGrant();
      return answer('newer');
    });
    expect(used).toEqual(['old', 'new']);
    expect(saves).toEqual([['new', 'newer']]);
  });

  it('lets invalid_grant stand when the stored token did not change, and does not retry other failures', async () => {
    const unchanged = scriptedVault(['same']);
    let calls = 0;
    await expect(renewThroughVault(unchanged.vault, 'held', async () => (calls++, Promise.reject(invalidGrant())))).rejects.toMatchObject({ name: 'invalid_grant' });
    expect(calls).toBe(1);
    const moved = scriptedVault(['old', 'new']);
    calls = 0;
    await expect(renewThroughVault(moved.vault, 'held', async () => (calls++, Promise.reject(new Error('socket hang up'))))).rejects.toThrow('socket hang up');
    expect(calls).toBe(1);
  });

  it('the memory vault runs renewals one at a time, each seeing the token the one before kept', async () => {
    const vault = memoryRefreshTokenVault('t0');
    let live = 't0';
    let inFlight = 0;
    let most = 0;
    const exchange = async (token: string) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight -= 1;
      if (token !== live) throw invalidGrant();
      live = `${token}+`;
      return answer(live);
    };
    await Promise.all(Array.from({ length: 5 }, () => renewThroughVault(vault, 't0', exchange)));
    expect(most).toBe(1);
    expect(vault.current()).toBe('t0+++++');
  });
});
