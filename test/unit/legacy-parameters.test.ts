import { describe, expect, it } from 'vitest';
import { renameLegacyParameters } from '../../src/api/legacy-parameters.js';
import type { ApiVersion } from '../../src/domain/versions.js';

describe('renameLegacyParameters before 2017-10-30', () => {
  const legacy: ApiVersion = '2016-03-05';

  describe('evidence (submit and update)', () => {
    it('renames user_id to account_id', () => {
      expect(renameLegacyParameters(legacy, 'evidence', { user_id: 'acct_1', template: 't' })).toEqual({
        account_id: 'acct_1',
        template: 't',
      });
    });

    it('keeps account_id when it is sent alongside user_id', () => {
      expect(renameLegacyParameters(legacy, 'evidence', { user_id: 'old', account_id: 'new' })).toEqual({
        account_id: 'new',
      });
    });

    it('lifts top-level customer_name and customer_email into fields when there are no fields', () => {
      expect(
        renameLegacyParameters(legacy, 'evidence', {
          customer_name: 'Ada',
          customer_email: 'ada@example.com',
        }),
      ).toEqual({ fields: { customer_name: 'Ada', customer_email: 'ada@example.com' } });
    });

    it('lifts customer_name into the fields that were sent, keeping their other keys', () => {
      expect(
        renameLegacyParameters(legacy, 'evidence', { customer_name: 'Ada', fields: { order_id: '123' } }),
      ).toEqual({ fields: { order_id: '123', customer_name: 'Ada' } });
    });

    it('lets a key already in fields win over the top-level legacy parameter', () => {
      expect(
        renameLegacyParameters(legacy, 'evidence', {
          customer_email: 'old@example.com',
          fields: { customer_email: 'new@example.com' },
        }),
      ).toEqual({ fields: { customer_email: 'new@example.com' } });
    });

    it('does not rename create-only legacy names', () => {
      expect(renameLegacyParameters(legacy, 'evidence', { external_charge: 'ch_1' })).toEqual({
        external_charge: 'ch_1',
      });
    });

    it('leaves input without legacy names as it is', () => {
      const input = { template: 't', fields: { a: 1 }, account_id: 'acct' };
      expect(renameLegacyParameters(legacy, 'evidence', input)).toEqual(input);
    });

    it('does not change the object it was given', () => {
      const input = { user_id: 'acct', customer_name: 'Ada', fields: { order_id: '1' } };
      renameLegacyParameters(legacy, 'evidence', input);
      expect(input).toEqual({ user_id: 'acct', customer_name: 'Ada', fields: { order_id: '1' } });
    });
  });

  describe('create', () => {
    it.each([
      ['external_identifier', 'id', 'dp_1'],
      ['external_charge', 'charge', 'ch_1'],
      ['external_customer', 'customer', 'cus_1'],
      ['user_id', 'account_id', 'acct_1'],
    ])('renames %s to %s', (legacyName, current, value) => {
      expect(renameLegacyParameters(legacy, 'create', { [legacyName]: value, amount: 500 })).toEqual({
        [current]: value,
        amount: 500,
      });
    });

    it.each([
      ['external_identifier', 'id'],
      ['external_charge', 'charge'],
      ['external_customer', 'customer'],
      ['user_id', 'account_id'],
    ])(
      'keeps %s out when the current name %s is sent alongside (the current name wins)',
      (legacyName, current) => {
        expect(renameLegacyParameters(legacy, 'create', { [legacyName]: 'old', [current]: 'new' })).toEqual({
          [current]: 'new',
        });
      },
    );

    it('renames all four legacy names in one request', () => {
      expect(
        renameLegacyParameters(legacy, 'create', {
          external_identifier: 'dp_1',
          external_charge: 'ch_1',
          external_customer: 'cus_1',
          user_id: 'acct_1',
        }),
      ).toEqual({ id: 'dp_1', charge: 'ch_1', customer: 'cus_1', account_id: 'acct_1' });
    });
  });
});

describe('renameLegacyParameters from 2017-10-30', () => {
  const modern: ApiVersion[] = ['2017-10-30', '2020-02-28', '2021-09-15'];

  it.each(modern)(
    'returns evidence input unchanged on %s (legacy names are unknown parameters)',
    (version) => {
      const input = {
        user_id: 'acct_1',
        customer_name: 'Ada',
        customer_email: 'ada@example.com',
        fields: { order_id: '1' },
      };
      expect(renameLegacyParameters(version, 'evidence', input)).toEqual({
        user_id: 'acct_1',
        customer_name: 'Ada',
        customer_email: 'ada@example.com',
        fields: { order_id: '1' },
      });
    },
  );

  it.each(modern)('returns create input unchanged on %s (legacy names are unknown parameters)', (version) => {
    const input = {
      external_identifier: 'dp_1',
      external_charge: 'ch_1',
      external_customer: 'cus_1',
      user_id: 'acct_1',
    };
    expect(renameLegacyParameters(version, 'create', input)).toEqual({
      external_identifier: 'dp_1',
      external_charge: 'ch_1',
      external_customer: 'cus_1',
      user_id: 'acct_1',
    });
  });
});
