import { z } from 'zod';
import { previewResponse } from '../../../features/responses/preview.js';
import { defineEndpoint } from '../../endpoint.js';
import { disputeIdParameter } from '../../inputs/params.js';
import { templateAnswer } from './docs.js';

/**
 * GET /v1/disputes/:id/preview: the response document a submission would send now (docs/api.md,
 * "Preview"), as a PDF with its warnings counted in `X-Evidence-Warnings`, or with `format=json` its
 * figures and warnings. Dated by the request's moment; saves and sends nothing.
 */
export const previewDisputeEndpoint = defineEndpoint({
  method: 'get',
  path: '/disputes/:id/preview',
  params: { id: disputeIdParameter },
  input: { query: z.object({ format: z.enum(['pdf', 'json']).optional() }) },
  docs: {
    operationId: 'previewDisputeResponse',
    summary: 'The response document a submission would send now, without sending or saving anything',
    description:
      'The PDF, with `X-Evidence-Warnings` counting what the processor would cut or refuse; `format=json` answers `{"object": "preview", "pages", "bytes", "warnings": [{"code", "message", "field"}], "livemode", "url"}` instead.',
    success: { 200: 'The response document, or its figures and warnings.' },
    returns: {
      description: 'The PDF (or, with `format=json`, the preview object).',
      mediaType: 'application/pdf',
    },
    errors: ['dispute_not_found', 'missing_template', templateAnswer, 'invalid_evidence_files'],
  },
  async handle({ caller, params, input, url, deps }) {
    const preview = await previewResponse(deps, caller, params.id, new Date());
    if (input.format === 'json') {
      const { pdf, pages, warnings, dispute } = preview;
      const body = { object: 'preview', pages, bytes: pdf.length, warnings, livemode: dispute.livemode, url };
      // Costs the key what the PDF itself would: the document was rendered all the same.
      return { status: 200, body, costBytes: pdf.length };
    }
    return {
      status: 200,
      bytes: preview.pdf,
      headers: {
        'Content-Type': 'application/pdf',
        'X-Evidence-Warnings': String(preview.warnings.length),
        'Content-Disposition': `inline; filename="preview-${preview.dispute.id.replaceAll(':', '_')}.pdf"`,
        // The cardholder's data: no shared caches, no copies kept by the browser.
        'Cache-Control': 'private, no-store',
      },
    };
  },
});
