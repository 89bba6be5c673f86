export { apiKeys } from './api-keys.js';
export { connectedAccounts } from './connected-accounts.js';
export { disputes } from './disputes.js';
export { events } from './events.js';
export { organisations } from './organisations.js';
export { submissions } from './submissions.js';
export { templates } from './templates.js';
export { webhookAttempts, webhookDeliveries, webhookEndpoints } from './webhooks.js';
