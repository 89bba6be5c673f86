export { apiKeys } from './api-keys.js';
export { disputes } from './disputes.js';
export { events } from './events.js';
export { organisations } from './organisations.js';
export { submissions } from './submissions.js';
export { templates } from './templates.js';
