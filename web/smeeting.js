// SMeeting web SDK — entry point. Plain ES modules, no build step, on top of the SRTC web SDK:
//
//   <script type="module">
//     import { SMeetingEngine } from '/sdk/smeeting.js';
//     const meeting = new SMeetingEngine(location.origin);
//     meeting.addEventListener('userDidEnter', (e) => console.log('entered:', e.detail.user.nickname));
//     await meeting.login(memberToken);                 // from your backend
//     await meeting.enterRoom({ roomNo: '123456789', password: '2468' });
//   </script>
//
// The SDK speaks the meeting protocol (docs/meeting-protocol.md) over one WebSocket and carries
// media over the meeting's SRTC channel (web/srtc.js). See docs/sdk-web.md, "SMeeting".

export { SMeetingEngine, SDK_VERSION } from './smeeting/engine.js';
export { SMeetingError, MeetingErrorCode } from './smeeting/errors.js';
export { DeviceKind } from './smeeting/engine-media.js';
export { MeetingEventTarget } from './smeeting/event-target.js';
export {
  AttendType, CameraPreset, CameraState, ExitReason, MeetingMode, MeetingStatus, MeetingType, MicPreset, MicState,
  Role, ScreenPreset, ShareType, SignInKind, SubMeetingStatus, TrackDesc, WaitingLeaveReason, isAdmin, meetingURL,
} from './smeeting/models.js';
