// SMeeting web SDK: sign-in and roll call (docs/meeting-protocol.md, "Sign-in and roll call"). A
// host (or co-host) starts a sign-in with a deadline and sees the count as members sign in; a roll
// call asks one member to answer in time. The server stores them: `getSignInResults(meetingId)`
// reads them, after the meeting too. Mixed into `SMeetingEngine`.

import { SMeetingError } from './errors.js';
import { onMeetingEvent } from './engine-dispatch.js';

function call(engine, type, data) {
  engine._inRoom();
  return engine._call(type, data);
}

export const SignInMethods = {
  /** The sign-in running now (`SignInInfo`: `{signInId, kind, startedBy, startedAt, deadline}`), or `null`. */
  get currentSignIn() { return this._signIn; },

  /** The roll calls running now that I was told of (mine, or every one for hosts), oldest first. */
  get currentRollCalls() { return [...this._rollCalls.values()].sort((a, b) => a.startedAt - b.startedAt); },

  /** Starts a sign-in of everyone present but me, open for `duration` seconds (5–3600); resolves with its `SignInInfo`. */
  adminStartSignIn(duration) { return call(this, 'admin_start_sign_in', { duration }); },

  /** Ends the running sign-in before its deadline; resolves with its `SignInResult`. */
  adminEndSignIn() { return call(this, 'admin_end_sign_in'); },

  /**
   * Signs me in to the running sign-in (or the one `signInId` names); resolves with my
   * `SignInRecord`. `apiError` 40905 after its deadline.
   */
  signIn(signInId = this._signIn?.signInId) {
    if (!signInId) return Promise.reject(SMeetingError.internal('no sign-in is running'));
    return call(this, 'sign_in', { signInId });
  },

  /** Calls `uid`, who must answer within `timeout` seconds (5–600); resolves with its `SignInInfo`. */
  adminRollCall(uid, timeout = 30) { return call(this, 'admin_roll_call', { uid, timeout }); },

  /** Answers a roll call of me; resolves with my `SignInRecord`. `apiError` 40905 after its deadline. */
  answerRollCall(rollCallId) { return call(this, 'answer_roll_call', { signInId: rollCallId }); },
};

/** The sign-in and roll-call events. */
function signInEvent(engine, type, data) {
  switch (type) {
    case 'sign_in_started':
      engine._signIn = data.signIn;
      engine.emit('signInDidStart', { signIn: data.signIn });
      break;
    case 'sign_in_progress':
      engine.emit('signInDidProgress', { signInId: data.signInId, uid: data.uid, signed: data.signed, total: data.total });
      break;
    case 'sign_in_ended':
      if (engine._signIn?.signInId === data.result.signIn.signInId) engine._signIn = null;
      engine.emit('signInDidEnd', { result: data.result });
      break;
    case 'roll_call':
      engine._rollCalls.set(data.signIn.signInId, data.signIn);
      engine.emit('rollCallDidStart', { signIn: data.signIn });
      break;
    default:
      engine._rollCalls.delete(data.result.signIn.signInId);
      engine.emit('rollCallDidEnd', { result: data.result });
  }
}

onMeetingEvent('room', ['sign_in_started', 'sign_in_progress', 'sign_in_ended', 'roll_call', 'roll_call_result'], signInEvent);
