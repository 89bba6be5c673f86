import { describe, expect, it } from 'vitest';
import {
  type ApiVersion,
  apiVersions,
  type Gate,
  gates,
  isApiVersion,
  isOn,
  latestVersion,
  referenceNames,
} from '../../src/domain/versions.js';

/** docs/api.md, "Versions", written from the contract. */
const contractVersions: ApiVersion[] = ['2016-03-05', '2017-10-30', '2020-02-28', '2021-09-15'];

const gateCases: { gate: Gate; from: ApiVersion; before: ApiVersion; what: string }[] = [
  { gate: 'modernNames', from: '2017-10-30', before: '2016-03-05', what: 'legacy names are gone' },
  {
    gate: 'acceptedNeedsForce',
    from: '2020-02-28',
    before: '2017-10-30',
    what: 'an accepted dispute submits only with force',
  },
  {
    gate: 'closedForEveryDispute',
    from: '2021-09-15',
    before: '2020-02-28',
    what: 'dispute.closed is sent for every closed dispute',
  },
];

describe('API versions', () => {
  it('lists the four versions of the contract, oldest first', () => {
    expect([...apiVersions]).toEqual(contractVersions);
  });

  it('has 2021-09-15 as the latest version', () => {
    expect(latestVersion).toBe('2021-09-15');
  });

  it('has exactly the three gates of the contract', () => {
    expect(gates).toEqual({
      modernNames: '2017-10-30',
      acceptedNeedsForce: '2020-02-28',
      closedForEveryDispute: '2021-09-15',
    });
  });
});

describe('isOn', () => {
  describe.each(gateCases)('gate $gate ($what)', ({ gate, from, before }) => {
    it(`is off on ${before}, the version before ${from}`, () => {
      expect(isOn(before, gate)).toBe(false);
    });

    it(`is on from ${from} itself`, () => {
      expect(isOn(from, gate)).toBe(true);
    });

    it.each(contractVersions)(`on %s is on exactly when the version is at or after ${from}`, (version) => {
      expect(isOn(version, gate)).toBe(version >= from);
    });
  });
});

describe('isApiVersion', () => {
  it.each(contractVersions)('accepts the listed version %s', (version) => {
    expect(isApiVersion(version)).toBe(true);
  });

  it.each([
    '',
    '2018-01-01',
    '2020-02-29',
    '2021-9-15',
    '2021-09-15 ',
    ' 2021-09-15',
    '20210915',
    'latest',
    '2021-09-15T00:00:00',
    '2099-01-01',
  ])('refuses %j, which is not a listed version', (value) => {
    expect(isApiVersion(value)).toBe(false);
  });
});

describe('referenceNames', () => {
  const references = { dispute: 'dp_1', charge: 'ch_1', account_id: 'acct_1' };

  it('gives 2016-03-05 the legacy names and the current ones, so a handler written for either works', () => {
    expect(referenceNames('2016-03-05', references)).toEqual({
      dispute_id: 'dp_1',
      external_charge: 'ch_1',
      user_id: 'acct_1',
      dispute: 'dp_1',
      charge: 'ch_1',
      account_id: 'acct_1',
    });
  });

  it.each(['2017-10-30', '2020-02-28', '2021-09-15'] as const)(
    'gives %s only the current names',
    (version) => {
      expect(referenceNames(version, references)).toEqual(references);
    },
  );
});
