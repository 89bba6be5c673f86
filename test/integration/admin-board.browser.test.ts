import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { type Browser, type BrowserContext, chromium, type Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submissions } from '../../src/db/schema/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import {
  acceptedSubmissions,
  expectError,
  getDispute,
  newTenant,
  readStored,
  submittableDispute,
  type Tenant,
} from '../helpers/disputes.js';
import { chromiumPath, ensureChromium } from '../helpers/services.js';

/**
 * Bull Board as on-call uses it, in a real browser (Debian's chromium, driven by playwright-core): sign in,
 * find a refused submission among the failed jobs, read its failure reason, retry it from the board, and
 * the dispute goes out. The service runs in this process, with the submission worker and the mock
 * processor.
 */
const operator = { username: 'operator', password: 'operator password' };
const outputFolder = join(import.meta.dirname, '..', '..', 'test-output');
/** Per browser step: generous, for a slow machine; every step waits for a condition, never a fixed time. */
const stepMs = 30_000;

let api: TestApi;
let tenant: Tenant;
let browser: Browser | undefined;
beforeAll(async () => {
  ensureChromium();
  api = await startTestApi({
    workers: ['submission'],
    env: { ADMIN_USER: operator.username, ADMIN_PASSWORD: operator.password },
  });
  tenant = await newTenant(api);
  // Installing chromium on a fresh machine takes a few minutes.
}, 600_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
});

/**
 * A fresh browser context signed in as the operator. Without chromium the test fails (never skips), saying
 * what to install.
 */
async function operatorContext(): Promise<BrowserContext> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `${chromiumPath} is missing: this test drives Debian's chromium. Install it with ` +
        '`apt-get install -y --no-install-recommends chromium` (the test setup does this when it runs as root).',
    );
  }
  browser = await chromium.launch({
    executablePath: chromiumPath,
    // Without the background-networking flags chromium reaches for Google's services, which this
    // machine's closed network refuses.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    timeout: 120_000,
  });
  // The service's certificate is self-signed, as it is on a fresh install.
  const context = await browser.newContext({ ignoreHTTPSErrors: true, httpCredentials: operator });
  context.setDefaultTimeout(stepMs);
  context.setDefaultNavigationTimeout(stepMs);
  return context;
}

/** Waits until the locator's element is visible (Playwright's own wait, bounded by `stepMs`). */
const visible = (locator: Locator) => locator.waitFor({ state: 'visible' });

describe('Bull Board in a browser', () => {
  it('shows a refused submission with its reason, and its Retry button submits the dispute', async () => {
    const page = await (await operatorContext()).newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));

    const { dispute } = await submittableDispute(api, tenant, {
      charge: `ch_mock_refuse_once_${Date.now()}`,
    });
    expectError(
      await api.call('POST', `/v1/disputes/${dispute.id}/submit`, { key: tenant.key }),
      502,
      'processor_error',
    );
    const { uid } = await readStored(api, tenant, dispute.id);
    const [row] = await api.db.db.select().from(submissions).where(eq(submissions.disputeUid, uid));
    const jobId = `submission-${row?.id}`;
    const submissionQueue = api.queues.byName.submission;
    expect(await submissionQueue.getJobState(jobId)).toBe('failed');

    // The overview lists the four queues in the sidebar.
    const response = await page.goto(`https://localhost:${new URL(api.origin).port}/admin/queues`);
    expect(response?.status()).toBe(200);
    const queueLinks = page.getByRole('complementary').getByRole('navigation').getByRole('link');
    for (const name of ['submission', 'webhook', 'mirror', 'deadline']) {
      await visible(queueLinks.filter({ hasText: new RegExp(`^${name}$`) }));
    }
    expect((await queueLinks.allTextContents()).sort()).toEqual([
      'deadline',
      'mirror',
      'submission',
      'webhook',
    ]);

    // The submission queue, its failed tab, and the one failed job in it.
    await queueLinks.filter({ hasText: /^submission$/ }).click();
    await page
      .getByRole('main')
      .getByRole('link', { name: /^FAILED\s*1$/ })
      .click();
    await page.waitForURL(/\/admin\/queues\/queue\/submission\?status=failed$/);
    await page.getByRole('main').getByRole('link', { name: jobId, exact: true }).click();
    await page.waitForURL((url) => url.pathname === `/admin/queues/queue/submission/${jobId}`);

    // The job's own page: its failure reason, as the processor gave it.
    const reason = page
      .getByRole('tabpanel', { name: 'Error' })
      .getByText(
        'mock 400 (permanent): The mock processor refused the evidence: charge is marked to refuse.',
      );
    await visible(reason);
    await visible(page.getByRole('main').getByText(jobId, { exact: true }));
    mkdirSync(outputFolder, { recursive: true });
    await page.screenshot({ path: join(outputFolder, 'admin-board-failed-job.png'), fullPage: true });

    // The job's actions are icon buttons named only by their tooltips: the first is Retry.
    const retry = page.getByRole('main').getByRole('listitem').getByRole('button').first();
    await retry.hover();
    await visible(page.getByText('Retry', { exact: true }));
    await retry.click();
    const confirm = page.getByRole('alertdialog', { name: 'Are you sure?' });
    await visible(confirm.getByText('Are you sure that you want to retry this job?'));
    await confirm.getByRole('button', { name: 'Confirm' }).click();
    await confirm.waitFor({ state: 'hidden' });

    // The retry is a new attempt, which the mock processor accepts.
    await expect
      .poll(async () => (await getDispute(api, tenant.key, dispute.id)).state, { timeout: stepMs })
      .toBe('submitted');
    await expect.poll(() => submissionQueue.getJobState(jobId), { timeout: stepMs }).toBe('completed');
    expect(acceptedSubmissions(api, dispute.id)).toHaveLength(1);

    // And the board shows it among the completed jobs, none left failed.
    await page.getByRole('main').getByRole('link', { name: 'submission', exact: true }).click();
    await page
      .getByRole('main')
      .getByRole('link', { name: /^COMPLETED/ })
      .click();
    await visible(page.getByRole('main').getByRole('link', { name: jobId, exact: true }));
    await visible(page.getByRole('main').getByRole('link', { name: 'FAILED', exact: true }));
    expect(pageErrors).toEqual([]);
  }, 180_000);
});
