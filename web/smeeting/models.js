// SMeeting web SDK: the meeting protocol's names and values (docs/meeting-protocol.md), and the
// conversion between the SDK's camelCase objects and the protocol's snake_case JSON.

import { TrackDesc } from '../srtc/models.js';

export { TrackDesc };

/** The meeting WebSocket path of protocol version 1. */
export const MEETING_PATH = '/stm/v1/ws';

/** `instant` starts when someone enters; `appointment` is planned (`planTime`, `planDur`). */
export const MeetingType = Object.freeze({ instant: 'instant', appointment: 'appointment' });

/** How the meeting runs. */
export const MeetingMode = Object.freeze({ normal: 'normal', mix: 'mix', voice: 'voice', training: 'training', subMeeting: 'sub_meeting' });

/** Who may enter: anyone with the room number, with the password, or the invited (`conferee`). */
export const AttendType = Object.freeze({ open: 'open', password: 'password', invitation: 'invitation' });

/** Where a meeting is in its life. */
export const MeetingStatus = Object.freeze({ scheduled: 'scheduled', ongoing: 'ongoing', ended: 'ended', cancelled: 'cancelled' });

/** A member's role; `host` and `coHost` may call the `admin…` methods. */
export const Role = Object.freeze({ member: 'member', host: 'host', coHost: 'co_host' });

/** A member's microphone. */
export const MicState = Object.freeze({ on: 'on', off: 'off' });

/** A member's camera. */
export const CameraState = Object.freeze({ on: 'on', off: 'off' });

/** What a member shares; `MeetingUserInfo.shareState` holds the number (0 when not sharing). */
export const ShareType = Object.freeze({ screen: 1, whiteBoard: 2 });

/** Why a member left the meeting. */
export const ExitReason = Object.freeze({
  exit: 'exit',
  kicked: 'kicked',
  ended: 'ended',
  disconnected: 'disconnected',
  duplicateLogin: 'duplicate_login',
});

/** Why someone left the waiting room (`waitingUserDidLeave`). */
export const WaitingLeaveReason = Object.freeze({ admitted: 'admitted', removed: 'removed', left: 'left' });

/** Where a sub-meeting is in its life. */
export const SubMeetingStatus = Object.freeze({ created: 'created', open: 'open', closing: 'closing' });

/** A sign-in of everyone, or a roll call of one member (`SignInInfo.kind`). */
export const SignInKind = Object.freeze({ signIn: 'sign_in', rollCall: 'roll_call' });

/** Camera capture presets (`requestOpenCamera({preset})`): the capture size asked of the browser. */
export const CameraPreset = Object.freeze({
  h180p: { width: 320, height: 180, frameRate: 15 },
  h360p: { width: 640, height: 360, frameRate: 30 },
  h540p: { width: 960, height: 540, frameRate: 30 },
  h720p: { width: 1280, height: 720, frameRate: 30 },
  h1080p: { width: 1920, height: 1080, frameRate: 30 },
});

/** Microphone presets (`requestOpenMic({preset})`): `speech` cleans the voice up, `music` keeps the sound as it is. */
export const MicPreset = Object.freeze({
  speech: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
  music: { echoCancellation: true, noiseSuppression: false, autoGainControl: false },
});

/** Screen capture presets (`requestShare({preset})`). */
export const ScreenPreset = Object.freeze({
  h720p: { width: 1280, height: 720, frameRate: 15 },
  h1080p: { width: 1920, height: 1080, frameRate: 15 },
});

/** Whether a role may call the `admin…` methods. */
export function isAdmin(role) {
  return role === Role.host || role === Role.coHost;
}

/**
 * Deep copy of an SDK object with camelCase keys turned snake_case (`roomNo` → `room_no`), for
 * requests. `undefined` and `null` fields are left out (the protocol's "absent").
 */
export function snakeize(value) {
  if (Array.isArray(value)) return value.map(snakeize);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined || v === null) continue;
    out[key.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase())] = snakeize(v);
  }
  return out;
}

/**
 * The meeting WebSocket URL for a server URL: `http://host:7880` → `ws://host:7880/stm/v1/ws`,
 * `https://…` → `wss://…`; a `ws(s)://` URL with a path is used as is.
 */
export function meetingURL(url) {
  const parsed = new URL(String(url).trim());
  const schemes = { 'http:': 'ws:', 'ws:': 'ws:', 'https:': 'wss:', 'wss:': 'wss:' };
  const scheme = schemes[parsed.protocol];
  if (!scheme || !parsed.host) throw new TypeError(`invalid server URL '${url}'`);
  const path = parsed.pathname.replace(/\/+$/, '');
  const keepPath = (parsed.protocol === 'ws:' || parsed.protocol === 'wss:') && path !== '';
  return `${scheme}//${parsed.host}${keepPath ? path : path + MEETING_PATH}${parsed.search}`;
}

/** `MeetingUserInfo` with every field present (the server leaves out empty ones). */
export function userInfo(data) {
  return {
    uid: data.uid,
    nickname: data.nickname ?? data.uid,
    role: data.role ?? Role.member,
    micState: data.micState ?? MicState.off,
    cameraState: data.cameraState ?? CameraState.off,
    shareState: data.shareState ?? 0,
    chatDisabled: Boolean(data.chatDisabled),
    drawDisabled: Boolean(data.drawDisabled),
    handRaised: Boolean(data.handRaised),
    presenter: Boolean(data.presenter),
    viewCapture: Boolean(data.viewCapture),
    subMeetingId: data.subMeetingId ?? null,
    trackDescs: data.trackDescs ?? [],
    enteredAt: data.enteredAt ?? 0,
    ...data,
  };
}

/** `RoomInfo` with every field present. */
export function roomInfo(data) {
  return {
    muteAll: false, allowSelfUnmute: false, cameraOffAll: false, allowSelfOpenCamera: false,
    shareDisabled: false, locked: false, sharingUid: null, shareType: 0, memberCount: 0, ingresses: [],
    ...data,
  };
}
