// traffic/flight.ts: one flight per key until its deadline, shared by every
// caller meanwhile; past it, the key is dropped by a timer even when nobody
// asks again (a load's pictures are not held after it ends).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Flights } from '../../traffic/flight.ts';

describe('Flights', () => {
  it('shares one flight until its deadline, then drops the key unasked; a later deadline is kept', async (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
    const flights = new Flights<string>(() => Date.now());
    let made = 0;
    const make = async () => `made ${++made}`;
    assert.equal(await flights.get('soon', Date.now() + 5000, make), 'made 1');
    assert.equal(await flights.get('soon', Date.now() + 5000, make), 'made 1', 'shared until the deadline');
    await flights.get('later', Date.now() + 60_000, make);
    assert.equal(flights.peek('soon'), 'made 1');
    t.mock.timers.tick(5001);
    assert.equal(flights.size, 1, 'the key past its deadline is gone without being asked for');
    assert.equal(flights.peek('later'), 'made 2');
    t.mock.timers.tick(55_000);
    assert.equal(flights.size, 0);
    assert.equal(await flights.get('soon', Date.now() + 5000, make), 'made 3', 'asked again: a new flight');
  });
});
