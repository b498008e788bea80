// The built-in provider's sign-ins in progress under a flood of anonymous
// starts (docs/api.md: Limits of the work a request may cause), on this
// process's entries (the data folder): one address keeps at most its share of
// a kind, so its flood evicts its own entries first; an interaction whose
// login form was shown survives any number of starts from others.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryEntries } from '../../auth/oidc/memory-entries.ts';

const entry = (owner: string, n: number) => ({ payload: { n }, exp: Math.floor(Date.now() / 1000) + 600, owner });

describe('MemoryEntries: bounds per address', () => {
  it('a flood from one address evicts its own entries, not those of others', async () => {
    const entries = new MemoryEntries(1000); // a share of 10 an address
    await entries.set('Interaction', 'theirs', entry('203.0.113.7', 0));
    for (let i = 0; i < 5000; i++) await entries.set('Interaction', `flood-${i}`, entry('198.51.100.1', i));
    assert.ok(await entries.get('Interaction', 'theirs'), 'the other address keeps its entry');
    assert.equal(entries.counts().Interaction, 11);
    assert.ok(await entries.get('Interaction', 'flood-4999'), 'the newest of the flood is kept');
    assert.equal(await entries.get('Interaction', 'flood-0'), undefined);
  });

  it('an interaction whose login form was shown survives a flood of starts from many addresses', async () => {
    const entries = new MemoryEntries(100);
    await entries.set('Interaction', 'signing-in', entry('203.0.113.7', 0));
    entries.keep('Interaction', 'signing-in');
    await entries.set('Interaction', 'not-shown', entry('203.0.113.8', 0));
    for (let i = 0; i < 3000; i++) await entries.set('Interaction', `start-${i}`, entry(`10.0.${i >> 8}.${i & 255}`, i));
    assert.ok(await entries.get('Interaction', 'signing-in'), 'the sign-in under way is still there');
    assert.equal(await entries.get('Interaction', 'not-shown'), undefined, 'an interaction never shown is evicted as before');
    assert.equal(entries.counts().Interaction, 100);
  });
});
