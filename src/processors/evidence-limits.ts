import type { EvidenceLimits } from './types.js';

/**
 * A processor that takes no file of its own: every evidence file is shown in the response document
 * (images drawn, PDFs as pages of their own), which goes wherever the processor takes it.
 */
export const documentOnly: EvidenceLimits = {
  slots: {},
  types: ['pdf', 'png', 'jpg'],
  maxFileBytes: null,
  maxTotalBytes: null,
  maxPages: null,
  textLimits: {},
};
