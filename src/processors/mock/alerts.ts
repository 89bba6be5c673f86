import type { AlertPage, ListAlertsRequest, NormalizedAlert } from '../alert-types.js';
import type { AccountReference } from '../types.js';

/**
 * The mock processor's alerts (docs/api.md, "Alerts"): per connected account, the warnings added and
 * changed by hand (tests, the demo), listed the way a processor lists changes: every change stamps the
 * alert with the next number of the account's sequence, and a listing returns the alerts changed after the
 * cursor's number, oldest change first. A cursor is that number, as text.
 */

let sequence = 0;

/** One account's alerts as the mock processor holds them. */
export class MockAccountAlerts {
  readonly #entries = new Map<string, { alert: NormalizedAlert; seq: number }>();
  #head = 0;

  /** A new warning (an actionable one for a fresh charge unless `overrides` say otherwise). */
  add(overrides: Partial<NormalizedAlert> = {}): NormalizedAlert {
    sequence += 1;
    const alert: NormalizedAlert = {
      // Zero-padded, so that ids sort as they were raised (the API breaks ties of created_at by id).
      id: `issfr_mock_${String(sequence).padStart(8, '0')}`,
      charge: `ch_mock_alerted_${sequence}`,
      amount: 2000,
      currency: 'usd',
      fraudType: 'made_with_stolen_card',
      actionable: true,
      reportedAt: new Date(),
      ...overrides,
    };
    if (this.#entries.has(alert.id)) throw new Error(`mock alert ${alert.id} exists already`);
    return this.#stamp(alert);
  }

  /** A change the processor makes to one of its warnings (Stripe turns `actionable` false). */
  change(id: string, changes: Partial<Omit<NormalizedAlert, 'id'>>): NormalizedAlert {
    const entry = this.#entries.get(id);
    if (!entry) throw new Error(`no mock alert ${id}`);
    return this.#stamp({ ...entry.alert, ...changes });
  }

  list(cursor: string | null, limit: number): AlertPage {
    const after = cursor === null ? 0 : Number.parseInt(cursor, 10);
    if (!Number.isSafeInteger(after) || after < 0) throw new Error(`not a mock alert cursor: '${cursor}'`);
    const changed = [...this.#entries.values()]
      .filter((entry) => entry.seq > after)
      .sort((a, b) => a.seq - b.seq);
    const page = changed.slice(0, limit);
    const last = page.at(-1)?.seq ?? after;
    return {
      alerts: page.map((entry) => ({ ...entry.alert })),
      nextCursor: page.length > 0 || cursor !== null ? String(last) : null,
      hasMore: changed.length > limit,
    };
  }

  #stamp(alert: NormalizedAlert): NormalizedAlert {
    this.#head += 1;
    this.#entries.set(alert.id, { alert, seq: this.#head });
    return { ...alert };
  }
}

/** The mock processor's alerts, one set per connected account. */
export class MockAlertWorld {
  readonly #accounts = new Map<string, MockAccountAlerts>();

  account(account: AccountReference): MockAccountAlerts {
    let alerts = this.#accounts.get(account.uid);
    if (!alerts) {
      alerts = new MockAccountAlerts();
      this.#accounts.set(account.uid, alerts);
    }
    return alerts;
  }

  async listAlerts(request: ListAlertsRequest): Promise<AlertPage> {
    return this.account(request.connection.account).list(request.cursor, request.limit);
  }
}
