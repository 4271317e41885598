// SMeeting web SDK: my microphone, camera and screen, devices, and remote media. Turning on asks
// the meeting first (room policies may refuse), turning off never throws (docs/meeting-protocol.md,
// "In the meeting"). Mixed into `SMeetingEngine`.

import { SMeetingError } from './errors.js';
import { CameraPreset, MicPreset, ScreenPreset, ShareType, TrackDesc } from './models.js';

/** Device kinds for `getDevices`. */
export const DeviceKind = Object.freeze({ audioInput: 'audioinput', videoInput: 'videoinput', audioOutput: 'audiooutput' });

async function capture(constraints, what) {
  try {
    const stream = await navigator.mediaDevices.getUserMedia(constraints);
    return stream.getTracks()[0];
  } catch (error) {
    throw SMeetingError.device(`cannot open the ${what}: ${error.message}`, error);
  }
}

function showPreview(view, mediaStreamTrack) {
  if (!view) return;
  view.muted = true;
  view.playsInline = true;
  view.srcObject = new MediaStream([mediaStreamTrack]);
  view.play?.()?.catch?.(() => {});
}

/**
 * Captures a device and publishes it as `kind` (`mic`, `camera`); on failure the capture stops
 * and the meeting is told the device is closed again (it had granted the request).
 */
async function captureAndPublish(engine, channel, kind, constraints, publishOptions, { preset, deviceId, view }) {
  let media = null;
  try {
    media = await capture(constraints, kind === 'mic' ? 'microphone' : 'camera');
    showPreview(view, media);
    const track = await channel.publishLocalTrack(media, publishOptions);
    engine._local[kind] = { track, media, view, preset, deviceId: media.getSettings?.().deviceId ?? deviceId ?? null };
    return track;
  } catch (error) {
    media?.stop();
    if (view) view.srcObject = null;
    await engine._call(kind === 'mic' ? 'close_mic' : 'close_camera').catch(() => {});
    throw error instanceof SMeetingError ? error : SMeetingError.from(error);
  }
}

export const MediaMethods = {
  // MARK: Local tracks

  /** My published microphone `LocalTrack`, if the mic is on. */
  get micTrack() { return this._local.mic?.track ?? null; },
  /** My published camera `LocalTrack` (`camera_big` with a `camera_small` simulcast layer), if on. */
  get cameraTrack() { return this._local.camera?.track ?? null; },
  /** My published screen `LocalTrack`, if I share my screen. */
  get screenTrack() { return this._local.screen?.track ?? null; },

  /** The browser's devices of one kind (`DeviceKind`): `[{deviceId, label, kind, groupId}]`. */
  async getDevices(kind) {
    const all = await navigator.mediaDevices.enumerateDevices();
    return all.filter((d) => !kind || d.kind === kind);
  },

  // MARK: Microphone

  /**
   * Turns the microphone on: asks the meeting (`unauthorized` under mute all for members; pass
   * `byAdmin: true, adminUid` to confirm a host's request), captures and publishes `mic`.
   * On a capture or publishing failure the meeting state is rolled back.
   * @param {{deviceId?: string, preset?: object, byAdmin?: boolean, adminUid?: string}} options
   */
  async requestOpenMic({ deviceId, preset = MicPreset.music, byAdmin = false, adminUid } = {}) {
    const channel = this._inMeeting();
    await this._call('request_open_mic', byAdmin ? { byAdmin: true, adminUid } : {});
    if (this._local.mic) return;
    const constraints = { ...preset, ...(deviceId ? { deviceId: { exact: deviceId } } : {}) };
    await captureAndPublish(this, channel, 'mic', { audio: constraints }, { desc: TrackDesc.mic }, { preset, deviceId });
  },

  /** Turns the microphone off: unpublishes, stops capture, tells the meeting. Never throws. */
  async closeMic() {
    if (!this._room) return;
    await this._stopLocal('mic');
    await this._call('close_mic').catch(() => {});
  },

  // MARK: Camera

  /**
   * Turns the camera on: asks the meeting (`unauthorized` under camera off for everyone), then
   * publishes `camera_big` with a `camera_small` simulcast layer (a quarter of each side). `view`
   * (a `<video>`) shows the local preview. Called again while on, returns the same track, switching
   * to `deviceId` when it names another camera.
   * @returns {Promise<LocalTrack>}
   */
  async requestOpenCamera({ view, deviceId, preset = CameraPreset.h720p, byAdmin = false, adminUid } = {}) {
    const channel = this._inMeeting();
    await this._call('request_open_camera', byAdmin ? { byAdmin: true, adminUid } : {});
    const current = this._local.camera;
    if (current) {
      if (deviceId && deviceId !== current.deviceId) await this.switchCamera({ deviceId });
      showPreview(view, current.media);
      return current.track;
    }
    const constraints = {
      width: { ideal: preset.width }, height: { ideal: preset.height }, frameRate: { ideal: preset.frameRate },
      ...(deviceId ? { deviceId: { exact: deviceId } } : {}),
    };
    return captureAndPublish(this, channel, 'camera', { video: constraints }, { desc: TrackDesc.cameraBig, simulcast: true }, { preset, deviceId, view });
  },

  /** Turns the camera off. Never throws. */
  async closeCamera() {
    if (!this._room) return;
    await this._stopLocal('camera');
    await this._call('close_camera').catch(() => {});
  },

  /**
   * Switches the open camera to `deviceId` without renegotiating (the sender's track is replaced).
   * `deviceError` when the camera is not on or the device cannot be opened.
   */
  async switchCamera({ deviceId } = {}) {
    const current = this._local.camera;
    if (!current) throw SMeetingError.device('the camera is not on');
    const settings = current.media.getSettings?.() ?? {};
    const media = await capture({ video: { deviceId: { exact: deviceId }, width: { ideal: settings.width }, height: { ideal: settings.height } } }, 'camera');
    await current.track.sender?.replaceTrack(media);
    current.media.stop();
    current.media = media;
    current.track.mediaStreamTrack = media;
    current.deviceId = deviceId;
    showPreview(current.view, media);
  },

  // MARK: Sharing

  /**
   * Starts sharing. `ShareType.whiteBoard` only announces the state; `ShareType.screen` (the
   * default) asks the browser for a screen (`getDisplayMedia`: call it from a click), then the
   * meeting, then publishes `screen`. Ending the capture from the browser's own UI stops sharing.
   * Throws `internalError` when I already share, `apiError` 40904 when someone else does,
   * `unauthorized` when sharing is disabled for members, `deviceError` when the user cancels.
   */
  async requestShare({ shareType = ShareType.screen, preset = ScreenPreset.h1080p, view, byAdmin = false, adminUid } = {}) {
    const channel = this._inMeeting();
    if (this._room.sharingUid === this.currentUserId) throw SMeetingError.internal('already sharing');
    const request = { shareType, ...(byAdmin ? { byAdmin: true, adminUid } : {}) };
    if (shareType !== ShareType.screen) {
      await this._call('request_share', request);
      return;
    }
    // The picker first: it needs the click's user activation, and a cancel then changes nothing.
    let media;
    try {
      const stream = await navigator.mediaDevices.getDisplayMedia({ video: { width: { max: preset.width }, height: { max: preset.height }, frameRate: { max: preset.frameRate } }, audio: false });
      media = stream.getVideoTracks()[0];
    } catch (error) {
      throw SMeetingError.device(`no screen to share: ${error.message}`, error);
    }
    try {
      await this._call('request_share', request);
      showPreview(view, media);
      const track = await channel.publishLocalTrack(media, { desc: TrackDesc.screen });
      this._local.screen = { track, media, view };
      media.addEventListener('ended', () => { if (this._local.screen?.media === media) this.stopShare(); });
    } catch (error) {
      media.stop();
      if (view) view.srcObject = null;
      if (error?.kind !== 'unauthorized' && error?.kind !== 'apiError') await this._call('stop_share').catch(() => {});
      throw error instanceof SMeetingError ? error : SMeetingError.from(error);
    }
  },

  /** Stops sharing. Never throws. */
  async stopShare() {
    if (!this._room) return;
    await this._stopLocal('screen');
    await this._call('stop_share').catch(() => {});
  },

  /**
   * Publishes `mediaStreamTrack`, a video track of the app's own content (a whiteboard canvas's
   * `captureStream()`, a slide), as my `screen` track without a sharing state: the view capture
   * of docs/meeting-protocol.md. The sharing rules apply: `unauthorized` while sharing is
   * disabled for members, `apiError` 40904 while someone else holds the screen, 40901 while I
   * share mine. Others see `viewCapture` in my `MeetingUserInfo` and play it as `screen`.
   * @returns {Promise<LocalTrack>}
   */
  async startViewCapture(mediaStreamTrack) {
    const channel = this._inMeeting();
    if (this._local.screen) throw SMeetingError.internal('already sharing or capturing a view');
    await this._call('start_view_capture');
    try {
      const track = await channel.publishLocalTrack(mediaStreamTrack, { desc: TrackDesc.screen });
      this._local.screen = { track, media: mediaStreamTrack, view: null, viewCapture: true };
      return track;
    } catch (error) {
      await this._call('stop_view_capture').catch(() => {});
      throw SMeetingError.from(error);
    }
  },

  /** Ends my view capture: the `screen` track is unpublished and its capture stopped. Never throws. */
  async stopViewCapture() {
    if (!this._room) return;
    if (this._local.screen?.viewCapture) await this._stopLocal('screen');
    await this._call('stop_view_capture').catch(() => {});
  },

  // MARK: Remote video

  /**
   * Subscribes to a member's video and shows it in `view` (a `<video>`). Views are counted per
   * member and track: the subscription ends when the last view is stopped. A view keeps showing
   * the member's camera (or screen) when it is turned off and on again. `trackDesc`:
   * `camera_big`, `camera_small` or `screen`; with `{layerBySize: true}` the camera layer follows
   * the views' rendered size (the biggest view of a member decides). A view bound while the
   * channel switches (a sub-meeting move) shows the member once the new channel has its track.
   * @returns {Promise<RemoteTrack>}
   */
  startPlayRemoteVideo(view, uid, trackDesc = TrackDesc.cameraBig, { layerBySize = false } = {}) {
    this._inRoom();
    return this._views.start(view, uid, trackDesc, { layerBySize });
  },

  /** Stops showing `uid`'s video in `view`; unsubscribes once no view shows it. */
  async stopPlayRemoteVideo(view, uid, trackDesc = TrackDesc.cameraBig) {
    this._inRoom();
    await this._views.stop(view, uid, trackDesc);
  },

  /** Subscribes to a member's video without a view (`camera_big` / `camera_small` switch the layer). */
  subscribeRemoteVideoTrack(uid, trackDesc) {
    this._inMeeting();
    return this._views.subscribe(uid, trackDesc);
  },

  /** Unsubscribes a member's video whatever views show it; silent when there is no such track. */
  async unsubscribeRemoteVideoTrack(uid, trackDesc) {
    this._inMeeting();
    await this._views.unsubscribe(uid, trackDesc);
  },

  // MARK: Remote audio

  /** Subscribes to a member's audio (done automatically on entry; for fine control). */
  async subscribeRemoteAudioTrack(uid, trackDesc = TrackDesc.mic) {
    this._inMeeting();
    await this._audio.subscribe(uid, trackDesc);
  },

  /** Unsubscribes a member's audio; silent when there is no such track. */
  async unsubscribeRemoteAudioTrack(uid, trackDesc = TrackDesc.mic) {
    this._inMeeting();
    await this._audio.unsubscribe(uid, trackDesc);
  },

  /** The speaker switch: `true` stops playing remote audio (subscriptions stay). */
  toggleRemoteAudioMute(mute) { this._audio.setMasterMuted(Boolean(mute)); },

  /** Whether remote audio playback is muted. */
  get isRemoteAudioMuted() { return this._audio.masterMuted; },

  /** Stops (or resumes) playing one member's audio; the others keep playing. */
  setRemoteAudioMuted(uid, mute) { this._audio.setMuted(uid, Boolean(mute)); },

  /** Whether one member's audio playback is muted by `setRemoteAudioMuted`. */
  isRemoteAudioMutedFor(uid) { return this._audio.isMuted(uid); },

  /** Plays remote audio on `deviceId` (an `audiooutput` device; `HTMLMediaElement.setSinkId`). */
  setAudioOutputDevice(deviceId) { return this._audio.setSink(deviceId); },

  // MARK: Internals

  /** Unpublishes one of my tracks and stops its capture at once; the unpublish finishes in the background. */
  _stopLocal(kind) {
    const local = this._local[kind];
    if (!local) return Promise.resolve();
    this._local[kind] = null;
    local.media.stop();
    if (local.view) local.view.srcObject = null;
    const channel = this._channel;
    if (!channel?.isJoined || !local.track.isPublished) return Promise.resolve();
    return channel.unpublish(local.track).catch((e) => this._log('debug', `unpublish ${kind}: ${e.message}`));
  },
};
