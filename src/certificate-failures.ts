/**
 * What a TLS connection's refusal of a peer's certificate means, by Node's error code: the webhook
 * delivery log names failures so, and a process refuses a Redis it can never trust (redis-connection.ts).
 */
export const certificateFailures: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS certificate not trusted',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS certificate not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS certificate not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'TLS certificate not trusted',
  CERT_HAS_EXPIRED: 'TLS certificate expired',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS certificate is for another host',
};
