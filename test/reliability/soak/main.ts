/**
 * `npm run soak`: the soak with random faults (soak.ts), 2 minutes unless SOAK_MINUTES says otherwise; prints the
 * report and exits 1 when an asserted check failed. See docs/operations.md, "Soak".
 */
import { runSoak, soakOptions } from './soak.js';

const { checks, report } = await runSoak(soakOptions());
console.log(report);
process.exit(checks.some((c) => c.asserted && !c.ok) ? 1 : 0);
