import { beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS, useTestServer } from './helpers.js';

const KEY = { headers: { 'keyway-api-key': 'kw_dev_api_key_not_secret' } };

// What each SCIM filter operator selects, on both databases (the filter runs in SQL): case-insensitive everywhere,
// multi-valued attributes (handles, groups) match when one value does, `ne` when none does, `and` before `or`.
describe.each(BACKENDS)('GET /persons?filter= operators (%s)', (backend) => {
  const t = useTestServer(backend);
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    const people = {
      ada: { handles: [{ type: 'email_address', value: 'ada@example.com' }], groups: ['Editors'], region: 'europe-belgium' },
      bob: { handles: [{ type: 'email_address', value: 'bob@example.org' }, { type: 'phone_number', value: '+447700900123' }], active: false, region: 'us-iowa' },
      cy: { handles: [{ type: 'phone_number', value: '+447700900999' }], groups: ['editors', 'ops'], region: 'europe-england' },
      dee: { handles: [{ type: 'email_address', value: 'dee@sample.net' }], groups: ['Units'], region: 'australia-sydney' },
    };
    for (const [name, body] of Object.entries(people)) {
      const created = await t.call('POST', '/persons', body, KEY);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids[name] = created.body.result.person_id;
    }
  });

  const select = async (filter: string) => {
    const res = await t.call('GET', `/persons?filter=${encodeURIComponent(filter)}`, undefined, KEY);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const found = res.body.result.map((p: { person_id: string }) => Object.keys(ids).find((k) => ids[k] === p.person_id));
    expect(res.body.meta.pagination.total_count).toBe(found.length);
    return found.sort();
  };

  it.each([
    ['handles.value eq "ADA@example.com"', ['ada']],
    ['handles.value sw "BOB@"', ['bob']],
    ['handles.value sw "+4477009009"', ['cy']],
    ['handles.value co "EXAMPLE"', ['ada', 'bob']],
    ['handles.value ne "bob@example.org"', ['ada', 'cy', 'dee']],
    ['handles.value pr', ['ada', 'bob', 'cy', 'dee']],
    ['handles.type eq "PHONE_NUMBER"', ['bob', 'cy']],
    ['groups eq "editors"', ['ada', 'cy']],
    ['groups eq "uNITS"', ['dee']],
    ['groups co "PS"', ['cy']],
    ['groups pr', ['ada', 'cy', 'dee']],
    ['groups ne "ops"', ['ada', 'bob', 'dee']],
    ['active eq false', ['bob']],
    ['active ne "TRUE"', ['bob']],
    ['active co "ru"', ['ada', 'cy', 'dee']],
    ['active pr', ['ada', 'bob', 'cy', 'dee']],
    ['region sw "EUROPE-"', ['ada', 'cy']],
    ['region eq "EUROPE-ENGLAND"', ['cy']],
    ['person_type eq "REGULAR" and region ne "europe-belgium"', ['bob', 'cy', 'dee']],
    ['groups co "op" or active eq false and region eq "europe-belgium"', ['cy']],
    ['groups co "op" or active eq false and region eq "us-iowa"', ['bob', 'cy']],
    ['region eq "eu-west"', ['ada']],
    ['handles.value eq "nobody@example.com"', []],
  ])('%s', async (filter, expected) => {
    expect(await select(filter)).toEqual(expected);
  });

  it('GET /groups/{name}/persons lists the members of that exact name, oldest first, counted', async () => {
    const members = async (group: string, query = '') => {
      const res = await t.call('GET', `/groups/${group}/persons${query}`, undefined, KEY);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { names: res.body.result.map((id: string) => Object.keys(ids).find((k) => ids[k] === id)), total: res.body.meta.pagination.total_count };
    };
    expect(await members('editors')).toEqual({ names: ['cy'], total: 1 });
    expect(await members('Editors')).toEqual({ names: ['ada'], total: 1 });
    await t.call('POST', '/groups/editors/persons', { persons: [ids.ada, ids.dee] }, KEY);
    expect(await members('editors')).toEqual({ names: ['ada', 'cy', 'dee'], total: 3 });
    expect(await members('editors', '?limit=1&offset=1')).toEqual({ names: ['cy'], total: 3 });
  });

  it('a value that is not a valid JSON string is a 400 naming it', async () => {
    const res = await t.call('GET', `/persons?filter=${encodeURIComponent('handles.value eq "a\\x"')}`, undefined, KEY);
    expect(res.body.errors[0]).toEqual({ httpcode: 400, message: 'filter: the value "a\\x" is not a valid quoted string at position 18' });
  });

  it('person_id, whatever its case', async () => {
    expect(await select(`person_id eq "${ids.dee!.toUpperCase()}"`)).toEqual(['dee']);
  });
});
