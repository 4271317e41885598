// SMeeting web SDK: host controls (`admin…`: host and co-hosts; co-host, transfer and end are the
// host's), chat and raised hands. A member calling an `admin…` method gets `unauthorized`.
// Mixed into `SMeetingEngine`.

function inMeetingCall(engine, type, data) {
  engine._inRoom();
  return engine._call(type, data);
}

export const AdminMethods = {
  // MARK: Room policies

  /** Mute all: every member's microphone closes; `allowSelfUnmute` lets members reopen theirs. Resolves with the `RoomInfo`. */
  adminMuteAll({ allowSelfUnmute = false } = {}) { return inMeetingCall(this, 'admin_mute_all', { allow: allowSelfUnmute }); },
  /** Lifts mute all (microphones stay closed until their owners open them). */
  adminUnmuteAll() { return inMeetingCall(this, 'admin_unmute_all'); },
  /** Camera off for everyone; `allowSelfOpen` lets members reopen theirs. */
  adminCameraOffAll({ allowSelfOpen = false } = {}) { return inMeetingCall(this, 'admin_camera_off_all', { allow: allowSelfOpen }); },
  /** Lifts camera off for everyone. */
  adminCameraOnAll() { return inMeetingCall(this, 'admin_camera_on_all'); },
  /** Locks the room (only host and co-hosts may enter) or unlocks it. */
  adminLockRoom(locked) { return inMeetingCall(this, 'admin_lock_room', { allow: Boolean(locked) }); },
  /** Disables sharing for members (a member sharing now stops) or enables it again. */
  adminDisableShare(disabled) { return inMeetingCall(this, 'admin_disable_share', { allow: Boolean(disabled) }); },
  /** Turns on live captions in the meeting (host and co-hosts; docs/captions.md): everyone gets `captionDidArrive`. */
  async startCaptions({ language } = {}) {
    await inMeetingCall(this, 'admin_start_captions', language ? { language } : {});
  },
  /** Turns live captions off; each turn in progress gets its final caption first. */
  async stopCaptions() {
    await inMeetingCall(this, 'admin_stop_captions');
  },
  /**
   * Makes an RTMP ingress into the meeting (docs/meeting-protocol.md, "Ingress"): an encoder
   * pushing to `url` appears under `ingress.uid` (its `camera_big` and `mic`), and every member
   * sees it in `RoomInfo.ingresses`. Resolves with `{ ingress, url, streamKey }`; only the caller
   * gets the URL and key.
   */
  adminCreateIngress({ nickname, subMeetingId } = {}) {
    return inMeetingCall(this, 'admin_create_ingress', { ...(nickname ? { nickname } : {}), ...(subMeetingId ? { subMeetingId } : {}) });
  },
  /** Deletes an ingress of the meeting (a push in progress ends). Resolves with the `RoomInfo`. */
  adminDeleteIngress(ingressId) { return inMeetingCall(this, 'admin_delete_ingress', { ingressId }); },
  /** Ends the meeting for everyone (host only). */
  async adminEndRoom() {
    await inMeetingCall(this, 'admin_end_room');
  },

  // MARK: Members

  /** Removes a member from the meeting (and from its SRTC channel). */
  async adminKickOut(uid) { await inMeetingCall(this, 'admin_kick', { uid }); },
  /** Makes a member co-host, or member again (host only). Resolves with its `MeetingUserInfo`. */
  adminSetCoHost(uid, enable = true) { return inMeetingCall(this, 'admin_set_co_host', { uid, enable: Boolean(enable) }); },
  /** Hands the host role to `uid`; I become a member (host only). */
  adminTransferHost(uid) { return inMeetingCall(this, 'admin_transfer_host', { uid }); },
  /** Asks a member to open its microphone; it answers with `requestOpenMic({byAdmin: true, adminUid})`. */
  async adminRequestOpenMic(uid) { await inMeetingCall(this, 'admin_request_open_mic', { uid }); },
  /** Asks a member to open its camera; it answers with `requestOpenCamera({byAdmin: true, adminUid})`. */
  async adminRequestOpenCamera(uid) { await inMeetingCall(this, 'admin_request_open_camera', { uid }); },
  /** Closes a member's microphone. */
  adminCloseMic(uid) { return inMeetingCall(this, 'admin_close_mic', { uid }); },
  /** Closes a member's camera. */
  adminCloseCamera(uid) { return inMeetingCall(this, 'admin_close_camera', { uid }); },
  /** Stops a member's sharing. */
  adminStopShare(uid) { return inMeetingCall(this, 'admin_stop_share', { uid }); },
  /** Disables (or enables again) chat for one member. */
  adminDisableChat(uid, disabled = true) { return inMeetingCall(this, 'admin_disable_chat', { uid, enable: Boolean(disabled) }); },
  /** Lowers a member's hand (in a training meeting: declines it). */
  adminLowerHand(uid) { return inMeetingCall(this, 'admin_lower_hand', { uid }); },
  /** Forbids (or allows again) a member to draw on the whiteboard (`drawDisabled`; myself too). */
  adminDisableDraw(uid, disabled = true) { return inMeetingCall(this, 'admin_disable_draw', { uid, enable: Boolean(disabled) }); },
  /** Names a training meeting's presenter, or takes it back (its mic, camera and share close). */
  adminSetPresenter(uid, enable = true) { return inMeetingCall(this, 'admin_set_presenter', { uid, enable: Boolean(enable) }); },
  /** Approves a raised hand in a training meeting: the member becomes presenter (`apiError` 40901 if not raised). */
  adminApproveHand(uid) { return inMeetingCall(this, 'admin_approve_hand', { uid }); },

  // MARK: Chat and hands

  /**
   * Sends a chat message to everyone, or to one member with `{to: uid}`; resolves with the
   * `ChatMessage` (`{messageId, from, fromNickname, to, text, timestamp}`). Others get
   * `didReceiveChatMessage`; I do not.
   */
  sendRoomChatMessage(text, { to } = {}) { return inMeetingCall(this, 'send_chat', { text: String(text), to }); },
  /** Raises my hand. */
  raiseHand() { return inMeetingCall(this, 'raise_hand'); },
  /** Lowers my hand. */
  lowerHand() { return inMeetingCall(this, 'lower_hand'); },
};
