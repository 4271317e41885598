// SRTC web SDK: the one error type every call rejects with.

/** Numeric codes of the SDK's own causes; the server's refusals keep the server's code (4xxxx/5xxxx). */
export const ErrorCode = Object.freeze({
  invalidURL: 1001,
  notJoined: 1002,
  wrongState: 1003,
  engineDestroyed: 1004,
  connectionFailed: 1005,
  timeout: 1006,
  mediaFailed: 1007,
  disconnected: 1008,
  /** The documentation's `RTCEngineErrorConflict`: a speed test while another runs or in a channel, IM enabled twice. */
  conflict: 1009,
});

/** The server's error codes (docs/server-api.md), by name, for comparisons such as `e.code === ServerErrorCode.permissionDenied`. */
export const ServerErrorCode = Object.freeze({
  malformedBody: 40001,
  invalidParameter: 40002,
  invalidToken: 40106,
  tokenExpired: 40107,
  tokenNotYetValid: 40108,
  permissionDenied: 40301,
  notFound: 40401,
  wrongState: 40901,
  payloadTooLarge: 41301,
  limitReached: 42901,
  rateLimited: 42902,
  internalError: 50001,
});

/**
 * An SDK failure. `kind` names the cause (`server`, `invalidURL`, `notJoined`, `wrongState`,
 * `engineDestroyed`, `connectionFailed`, `timeout`, `mediaFailed`, `disconnected`, `conflict`); `code` is the
 * server's code for `server` errors and 1001… otherwise; `reason` is the `DisconnectReason` of a
 * `disconnected` error.
 */
export class SRTCError extends Error {
  constructor(kind, message, { code, reason, cause } = {}) {
    super(message, cause ? { cause } : undefined);
    this.name = 'SRTCError';
    this.kind = kind;
    this.code = code ?? ErrorCode[kind] ?? 0;
    if (reason) this.reason = reason;
  }

  /** A refusal answered by the server: `{code, message}` of a signaling response. */
  static server(error) {
    const code = Number(error?.code) || ServerErrorCode.internalError;
    const message = String(error?.message ?? 'server error');
    return new SRTCError('server', `server refused (${code}): ${message}`, { code });
  }

  /** The server's message without the SDK's prefix, for `server` errors. */
  get serverMessage() {
    const m = /^server refused \(\d+\): (.*)$/s.exec(this.message);
    return m ? m[1] : undefined;
  }
}

/** Wraps anything thrown by a browser API as an `SRTCError` of `kind` (unless it already is one). */
export function asSRTCError(error, kind, what) {
  if (error instanceof SRTCError) return error;
  const detail = error?.message ?? String(error);
  return new SRTCError(kind, what ? `${what}: ${detail}` : detail, { cause: error });
}
