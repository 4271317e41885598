// SMeeting web SDK: the one error type meeting calls reject with.

import { ServerErrorCode } from '../srtc/errors.js';

/**
 * The meeting protocol's error codes (docs/meeting-protocol.md, Errors), by name: the server
 * API's codes plus the meeting's own.
 */
export const MeetingErrorCode = Object.freeze({
  ...ServerErrorCode,
  policyForbidden: 40311,
  roomLocked: 40312,
  wrongPassword: 40313,
  notInvited: 40314,
  notInMeeting: 40902,
  meetingClosed: 40903,
  alreadySharing: 40904,
});

/**
 * A meeting failure, the JavaScript form of the Swift SDK's `SMeetingError`. `kind` is one of
 * `notLoggedIn`, `notInMeeting`, `unauthorized` (permission or room policy), `apiError` (any
 * other server refusal: `code` and `serverMessage` say which), `internalError`, `deviceError`.
 * `code` is the server's code when the server refused (also for `unauthorized`), else 0.
 */
export class SMeetingError extends Error {
  constructor(kind, message, { code = 0, serverMessage, cause } = {}) {
    super(message, cause ? { cause } : undefined);
    this.name = 'SMeetingError';
    this.kind = kind;
    this.code = code;
    if (serverMessage !== undefined) this.serverMessage = serverMessage;
  }

  static notLoggedIn() { return new SMeetingError('notLoggedIn', 'not logged in'); }
  static notInMeeting() { return new SMeetingError('notInMeeting', 'not in a meeting', { code: MeetingErrorCode.notInMeeting }); }
  static internal(message, cause) { return new SMeetingError('internalError', message, { cause }); }
  static device(message, cause) { return new SMeetingError('deviceError', message, { cause }); }

  /**
   * Maps what a request rejected with: a server refusal (the SRTC SDK's `SRTCError` of kind
   * `server`) becomes `unauthorized` (40301, 40311), `notInMeeting` (40902) or `apiError`; a lost
   * connection or a timeout becomes `internalError`.
   */
  static from(error) {
    if (error instanceof SMeetingError) return error;
    if (error?.kind === 'server') {
      const code = error.code;
      const serverMessage = error.serverMessage ?? error.message;
      if (code === MeetingErrorCode.permissionDenied || code === MeetingErrorCode.policyForbidden) {
        return new SMeetingError('unauthorized', `unauthorized: ${serverMessage}`, { code, serverMessage, cause: error });
      }
      if (code === MeetingErrorCode.notInMeeting) return new SMeetingError('notInMeeting', serverMessage, { code, serverMessage, cause: error });
      return new SMeetingError('apiError', `meeting error ${code}: ${serverMessage}`, { code, serverMessage, cause: error });
    }
    return SMeetingError.internal(error?.message ?? String(error), error);
  }
}
