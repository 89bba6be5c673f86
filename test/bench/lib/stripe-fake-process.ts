import { startStripeFake } from '../../fakes/stripe.js';

/**
 * The fake Stripe in a process of its own, as a processor is: its CPU is not the mirror's. Started by
 * test/bench/mirror-stripe.ts with the number of disputes to hold; prints its URL on one line, then
 * serves until its parent closes its stdin.
 */
const count = Number(process.argv[2] ?? 0);
const stripe = await startStripeFake();
stripe.addDisputes(count);
process.stdout.write(`${stripe.server.url}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void stripe.close().then(() => process.exit(0));
});
