// SRTC Meet: the meeting screen. Tiles (grid or speaker layout, the active speaker highlighted,
// each asking for the camera layer its size needs) of the members in my place (the main meeting or
// my breakout room), the controls, the waiting screen, the reconnecting banner, host requests and
// keyboard shortcuts. The participants panel, breakout rooms, sign-in and chat live in their own files.
// The meeting's ingresses (an encoder's RTMP stream, `RoomInfo.ingresses`) get tiles like members'.

import { CameraPreset, MicPreset, ShareType, TrackDesc } from '/sdk/smeeting.js';
import { $, ask, el, errorText, formatRoomNo, initials, showScreen, toast } from './ui.js';
import { ParticipantsPanel } from './participants.js';
import { icon } from './icons.js';
import { ChatPanel } from './chat.js';
import { BreakoutPanel } from './breakouts.js';
import { Attendance } from './attendance.js';
import { CaptionsView } from './captions.js';

/** `?quality=low` sends 360p instead of 720p (slow machines, tests). */
const CAMERA_PRESET = new URLSearchParams(location.search).get('quality') === 'low' ? CameraPreset.h360p : CameraPreset.h720p;

/** Keyboard shortcuts (outside text fields): key → control button. */
const SHORTCUTS = { m: 'btn-mic', v: 'btn-camera', s: 'btn-share', w: 'btn-whiteboard', h: 'btn-hand', c: 'btn-chat', p: 'btn-people', t: 'btn-transcript', l: 'btn-layout' };

export class MeetingView {
  constructor(meeting, deviceChoice, { onExit }) {
    this.meeting = meeting;
    this.deviceChoice = deviceChoice;
    this.onExit = onExit;
    /** key (uid, or `share:<uid>`) → tile */
    this.tiles = new Map();
    this.layout = 'grid';
    this.speakerUid = null;
    this.exitNotice = null;
    this.participants = new ParticipantsPanel(meeting, () => this.openPanel('participants'));
    this.breakouts = new BreakoutPanel(meeting);
    this.attendance = new Attendance(meeting, (uid) => this.#name(uid));
    this.chat = new ChatPanel(meeting);
    this.captions = new CaptionsView((uid) => this.#name(uid), (uid) => this.tiles.get(uid)?.caption);
    this.#wireControls();
    this.#wireEvents();
  }

  /**
   * Enters a meeting, shows it, then opens the camera and microphone chosen before. With a
   * waiting room, the waiting screen shows until a host lets me in.
   */
  async enter(req) {
    // The name typed last on the pre-join screen (it may have changed since signing in).
    const nickname = localStorage.getItem('srtc-meet-name') || this.meeting.currentNickname;
    this.exitNotice = null;
    const room = await this.meeting.enterRoom({ ...req, nickname });
    if (this.meeting.isInWaitingRoom) {
      showScreen('waiting');
      $('waiting-text').textContent = `The host of “${room.title}” will let you in soon.`;
      document.title = `Waiting · ${room.title} · SRTC Meet`;
      $('waiting-leave').focus();
      return;
    }
    await this.#show();
  }

  /** Shows the meeting I am in and opens my devices. */
  async #show() {
    this.layout = 'grid';
    this.speakerUid = null;
    this.captions.reset();
    showScreen('meeting');
    this.#renderAll();
    $('btn-mic').focus();
    this.#quality(this.meeting.currentUserId, this.meeting.getConnectionQuality());
    await this.#openChosenDevices();
  }

  /** The camera and microphone the pre-join screen turned on. */
  async #openChosenDevices() {
    const choice = this.deviceChoice();
    const opening = [];
    if (choice.cameraOn) opening.push(this.#openCamera());
    if (choice.micOn) opening.push(this.#openMic());
    await Promise.all(opening);
  }

  openPanel(name) {
    const panels = { participants: $('participants-panel'), chat: $('chat-panel'), transcript: $('transcript-panel') };
    const open = panels[name].hidden;
    for (const [key, panel] of Object.entries(panels)) panel.hidden = key !== name || !open;
    $('side-panel').hidden = !open;
    $('btn-people').setAttribute('aria-pressed', String(open && name === 'participants'));
    $('btn-chat').setAttribute('aria-pressed', String(open && name === 'chat'));
    $('btn-transcript').setAttribute('aria-pressed', String(open && name === 'transcript'));
    if (open && name === 'chat') { this.chat.opened(); $('chat-input').focus(); }
    if (open && name === 'participants') this.participants.render();
    this.#applyLayout();
  }

  // MARK: - Media controls

  async #openMic() {
    try {
      await this.meeting.requestOpenMic({ deviceId: this.deviceChoice().micId || undefined, preset: MicPreset.speech });
    } catch (e) { toast(`Microphone: ${errorText(e)}`); }
    this.#renderControls();
  }

  async #openCamera() {
    const tile = this.tiles.get(this.meeting.currentUserId);
    try {
      await this.meeting.requestOpenCamera({ view: tile?.video, deviceId: this.deviceChoice().cameraId || undefined, preset: CAMERA_PRESET });
    } catch (e) { toast(`Camera: ${errorText(e)}`); }
    this.#renderControls();
  }

  #wireControls() {
    const m = this.meeting;
    $('btn-mic').addEventListener('click', () => (m.me?.micState === 'on' ? m.closeMic().then(() => this.#renderControls()) : this.#openMic()));
    $('btn-camera').addEventListener('click', () => (m.me?.cameraState === 'on' ? m.closeCamera().then(() => this.#renderControls()) : this.#openCamera()));
    // Share and Whiteboard: each starts its kind of share, or stops mine of that kind. A whiteboard
    // share only announces the state (the seed's `requestShare(shareType: .whiteBoard)`): the others
    // see who presents one, no media flows.
    const shareButton = (id, shareType, what) => $(id).addEventListener('click', async () => {
      if (m.me?.shareState === shareType) { await m.stopShare().catch((e) => toast(errorText(e))); return; }
      try { await m.requestShare({ shareType }); } catch (e) { toast(`${what}: ${errorText(e)}`); }
    });
    shareButton('btn-share', ShareType.screen, 'Share');
    shareButton('btn-whiteboard', ShareType.whiteBoard, 'Whiteboard');
    $('btn-hand').addEventListener('click', async () => {
      try { await (m.me?.handRaised ? m.lowerHand() : m.raiseHand()); } catch (e) { toast(errorText(e)); }
    });
    $('btn-chat').addEventListener('click', () => this.openPanel('chat'));
    $('btn-people').addEventListener('click', () => this.openPanel('participants'));
    $('btn-transcript').addEventListener('click', () => this.openPanel('transcript'));
    for (const button of document.querySelectorAll('.close-panel')) button.addEventListener('click', () => this.openPanel(button.closest('section').id.replace('-panel', '')));
    $('btn-layout').addEventListener('click', () => {
      this.layout = this.layout === 'grid' ? 'speaker' : 'grid';
      this.#applyLayout();
    });
    $('btn-leave').addEventListener('click', () => this.#leave());
    $('waiting-leave').addEventListener('click', () => m.exitRoom());
    $('btn-help').addEventListener('click', async () => {
      try { await m.requestSubMeetingHelp(); toast('The host was asked for help'); } catch (e) { toast(errorText(e)); }
    });
    $('btn-return').addEventListener('click', () => m.adminVisitSubMeeting(null).catch((e) => toast(errorText(e))));
    $('room-info').addEventListener('click', async () => {
      const link = `${location.origin}/meet/?room=${m.getRoomInfo()?.roomNo ?? ''}`;
      try { await navigator.clipboard.writeText(link); toast('Invitation link copied'); } catch (e) { toast(link, 10000); }
    });
    document.addEventListener('keydown', (event) => {
      if ($('meeting').hidden || event.ctrlKey || event.metaKey || event.altKey) return;
      if (event.target.closest?.('input, textarea, select, dialog')) return;
      const id = SHORTCUTS[event.key.toLowerCase()];
      if (!id) return;
      event.preventDefault();
      $(id).click();
    });
  }

  async #leave() {
    const m = this.meeting;
    if (m.me?.role === 'host' && m.getUsersInfoList().length > 1) {
      const choice = await ask('Leave the meeting?', 'You can leave and let the others go on, or end the meeting for everyone.',
        [{ label: 'Cancel', value: 'cancel' }, { label: 'Leave', value: 'leave' }, { label: 'End for everyone', value: 'end', primary: true }]);
      if (choice === 'end') { await m.adminEndRoom().catch((e) => toast(errorText(e))); return; }
      if (choice !== 'leave') return;
    }
    await m.exitRoom();
  }

  // MARK: - Events

  #wireEvents() {
    const m = this.meeting;
    const on = (type, fn) => m.addEventListener(type, (e) => { if (m.isInRoom || type === 'didExitRoom') fn(e.detail); });
    on('userDidEnter', ({ user }) => { if (this.#here(user)) this.#ensureTile(user); this.#afterMembersChanged(); toast(`${user.nickname} joined`, 3000); });
    on('userDidExit', ({ user, reason }) => { this.#removeTile(user.uid); this.#afterMembersChanged(); if (reason !== 'duplicate_login') toast(`${user.nickname} left${reason === 'kicked' ? ' (removed)' : ''}`, 3000); });
    on('userInfoDidChange', ({ user, fields }) => {
      if (user.uid !== m.currentUserId && fields.includes('sub_meeting_id')) {
        // Someone came into my place or left it.
        if (this.#here(user)) this.#ensureTile(user); else this.#removeTile(user.uid);
        this.#syncShareTile(m.getRoomInfo());
      }
      this.#updateTile(user);
      this.participants.render();
      this.breakouts.render();
      this.#renderControls();
    });
    m.addEventListener('wasAdmittedFromWaitingRoom', () => { toast('The host let you in', 3000); this.#show().catch((e) => toast(errorText(e))); });
    m.addEventListener('wasRemovedFromWaitingRoom', ({ detail }) => {
      this.exitNotice = detail.adminUid ? 'The host did not let you in.' : 'You were not let in.';
    });
    on('waitingUserDidEnter', ({ user }) => { toast(`${user.nickname} is waiting to join`); this.#afterMembersChanged(); });
    on('waitingUserDidLeave', () => this.#afterMembersChanged());
    on('waitingListDidChange', () => this.#afterMembersChanged());
    on('didMoveToSubMeeting', ({ subMeeting }) => {
      toast(subMeeting ? `You are in ${subMeeting.title}` : 'You are back in the main meeting', 3000);
      this.#renderAll();
      this.#openChosenDevices().catch(() => {});
    });
    on('subMeetingsDidChange', () => { this.participants.render(); this.breakouts.render(); this.#renderPlace(); });
    on('didReceiveSubMeetingBroadcast', ({ message }) => toast(`${message.fromNickname ?? this.#name(message.from)} to everyone: ${message.text}`, 10000));
    on('subMeetingsWillClose', ({ countdown }) => toast(`Breakout rooms close in ${countdown} s`, Math.max(3000, countdown * 1000)));
    on('userHandDidChange', ({ user }) => { if (user.handRaised && user.uid !== m.currentUserId) toast(`${user.nickname} raised a hand`); });
    on('userMicStateDidChange', ({ user, by }) => { if (user.uid === m.currentUserId && by && user.micState === 'off') toast('The host muted you'); });
    on('userCameraStateDidChange', ({ user, by }) => { if (user.uid === m.currentUserId && by && user.cameraState === 'off') toast('The host turned your camera off'); });
    on('userPresenterDidChange', ({ user }) => {
      if (user.uid === m.currentUserId) toast(user.presenter ? 'You are a presenter: you may turn on your microphone and camera' : 'You are no longer a presenter');
    });
    on('userRoleDidChange', ({ user }) => { if (user.uid === m.currentUserId) toast(`You are now ${user.role === 'co_host' ? 'a co-host' : user.role}`); });
    on('roomInfoDidChange', ({ room }) => { this.#renderHeader(); this.#syncShareTile(room); this.#syncIngressTiles(room); this.participants.render(); this.#renderControls(); });
    on('e2eeKeyDidChange', () => this.#renderHeader());
    on('activeSpeakersDidChange', ({ speakers }) => this.#speakers(speakers));
    on('captionDidArrive', ({ caption }) => this.captions.show(caption));
    on('connectionQualityDidChange', ({ uid, quality }) => this.#quality(uid, quality));
    on('adminDidRequestOpenMic', async ({ adminUid }) => {
      const yes = await ask('Unmute?', `${this.#name(adminUid)} asks you to turn your microphone on.`, [{ label: 'Stay muted', value: 'no' }, { label: 'Unmute', value: 'yes', primary: true }]);
      if (yes === 'yes') await m.requestOpenMic({ byAdmin: true, adminUid, preset: MicPreset.speech, deviceId: this.deviceChoice().micId || undefined }).catch((e) => toast(errorText(e)));
      this.#renderControls();
    });
    on('adminDidRequestOpenCamera', async ({ adminUid }) => {
      const yes = await ask('Turn your camera on?', `${this.#name(adminUid)} asks you to turn your camera on.`, [{ label: 'Keep it off', value: 'no' }, { label: 'Turn on', value: 'yes', primary: true }]);
      if (yes === 'yes') await m.requestOpenCamera({ byAdmin: true, adminUid, view: this.tiles.get(m.currentUserId)?.video, preset: CAMERA_PRESET }).catch((e) => toast(errorText(e)));
      this.#renderControls();
    });
    on('wasKicked', ({ adminUid }) => { this.exitNotice = adminUid ? `${this.#name(adminUid)} removed you from the meeting.` : 'You were removed from the meeting.'; });
    on('meetingDidEnd', ({ adminUid }) => { this.exitNotice = adminUid ? `${this.#name(adminUid)} ended the meeting.` : 'The meeting was ended.'; });
    on('didExitRoom', ({ reason }) => {
      for (const key of [...this.tiles.keys()]) this.#removeTile(key);
      this.chat.reset();
      this.attendance.reset();
      $('side-panel').hidden = true;
      $('banner').hidden = true;
      const notices = { duplicate_login: 'You joined this meeting from another window.', disconnected: 'The connection to the meeting was lost.' };
      this.onExit(this.exitNotice ?? notices[reason] ?? null);
    });
    m.addEventListener('connectionStateDidChange', ({ detail }) => {
      const banner = $('banner');
      banner.hidden = detail.state !== 'reconnecting' || !(m.isInRoom || m.isInWaitingRoom);
      banner.textContent = banner.hidden ? '' : 'Reconnecting…';
      if (detail.previous === 'reconnecting' && detail.state === 'connected' && m.isInRoom) toast('Reconnected', 3000);
    });
    // The session resumed: what was missed arrives as normal events; redraw what they change.
    m.addEventListener('meetingDidReconnect', () => { if (m.isInRoom) { this.#renderHeader(); this.#afterMembersChanged(); } });
  }

  /** Whether `user` is where I am: the main meeting or my breakout room. */
  #here(user) {
    return (user.subMeetingId ?? null) === this.meeting.currentSubMeetingId;
  }

  /** The bar that says which breakout room I am in (with help for members, the way back for hosts). */
  #renderPlace() {
    const m = this.meeting;
    const id = m.currentSubMeetingId;
    $('place-bar').hidden = !id;
    if (!id) return;
    const sub = m.getSubMeetings().find((s) => s.subMeetingId === id);
    $('place-text').textContent = `Breakout room: ${sub?.title ?? id}`;
    const admin = m.me?.role === 'host' || m.me?.role === 'co_host';
    $('btn-help').hidden = admin;
    $('btn-return').hidden = !admin;
  }

  #name(uid) { return this.meeting.getUsersInfo().get(uid)?.nickname ?? uid; }

  // MARK: - Rendering

  #renderAll() {
    for (const key of [...this.tiles.keys()]) this.#removeTile(key);
    for (const user of this.meeting.getUsersInfoList()) if (this.#here(user)) this.#ensureTile(user);
    this.#syncShareTile(this.meeting.getRoomInfo());
    this.#syncIngressTiles(this.meeting.getRoomInfo());
    this.#renderHeader();
    this.#renderPlace();
    this.#afterMembersChanged();
  }

  #renderHeader() {
    const room = this.meeting.getRoomInfo();
    if (!room) return;
    $('meeting-title').textContent = room.title;
    document.title = `${room.title} · SRTC Meet`;
    $('room-no').textContent = formatRoomNo(room.roomNo);
    const flags = [room.mode === 'training' && 'Training', room.mode === 'voice' && 'Voice only', room.locked && 'Locked', room.muteAll && 'Muted by host', room.cameraOffAll && 'Cameras off', room.shareDisabled && 'Sharing off'].filter(Boolean);
    $('room-flags').textContent = flags.join(' · ');
    // End-to-end encryption: a lock with the code members compare aloud (docs/e2ee.md).
    const lock = $('e2ee-lock'), status = this.meeting.e2eeStatus;
    lock.hidden = !room.e2ee;
    lock.textContent = status ? `🔒 ${status.verificationCode}` : '🔒 waiting for the key';
    lock.setAttribute('aria-label', status ? `End-to-end encrypted, verification code ${status.verificationCode}` : 'End-to-end encrypted, waiting for the key');
  }

  #renderControls() {
    const me = this.meeting.me;
    if (!me) return;
    const set = (id, on, onLabel, offLabel) => {
      const button = $(id);
      button.setAttribute('aria-pressed', String(on));
      button.textContent = on ? onLabel : offLabel;
    };
    set('btn-mic', me.micState === 'on', 'Mute', 'Unmute');
    $('btn-mic').classList.toggle('off', me.micState !== 'on');
    set('btn-camera', me.cameraState === 'on', 'Stop video', 'Start video');
    $('btn-camera').classList.toggle('off', me.cameraState !== 'on');
    set('btn-share', me.shareState === ShareType.screen, 'Stop sharing', 'Share');
    set('btn-whiteboard', me.shareState === ShareType.whiteBoard, 'Stop whiteboard', 'Whiteboard');
    set('btn-hand', me.handRaised, 'Lower hand', 'Raise hand');
    // The host turned my chat off: the form says so instead of failing on send.
    $('chat-input').disabled = $('chat-send').disabled = Boolean(me.chatDisabled);
    $('chat-input').placeholder = me.chatDisabled ? 'Chat turned off by the host' : 'Message';
    $('btn-layout').textContent = this.layout === 'grid' ? 'Speaker view' : 'Grid view';
  }

  #afterMembersChanged() {
    const waiting = this.meeting.getWaitingList().length;
    $('people-count').textContent = waiting ? `${this.meeting.getUsersInfoList().length} + ${waiting} waiting` : String(this.meeting.getUsersInfoList().length);
    this.participants.render();
    this.breakouts.render();
    this.attendance.render();
    this.chat.membersChanged();
    this.#renderControls();
    this.#applyLayout();
  }

  /** A member's camera tile, or (`shareType` 1 or 2) the tile of what they share. */
  #ensureTile(user, key = user.uid, shareType = 0) {
    const share = shareType !== 0;
    if (this.tiles.has(key)) { this.#updateTile(user); return this.tiles.get(key); }
    const mine = user.uid === this.meeting.currentUserId;
    const video = el('video', { autoplay: true, playsInline: true, muted: true, 'aria-hidden': 'true' });
    const avatar = el('div', { class: 'avatar', 'aria-hidden': 'true' }, initials(user.nickname));
    const name = el('span', { class: 'name' });
    const mic = el('span', { class: 'mic' }, icon('micOff'), el('span', { class: 'sr-only' }, 'muted'));
    const level = this.meeting.getConnectionQuality(user.uid);
    const quality = el('span', { class: `quality ${level}`, role: 'img', 'aria-label': `connection quality ${level}` });
    const hand = el('span', { class: 'hand', hidden: true }, icon('hand'), el('span', { class: 'sr-only' }, 'hand raised'));
    // Live captions of this member's speech (camera tiles only).
    const caption = el('div', { class: 'caption', hidden: true });
    const root = el('div', { class: `tile${mine && !share ? ' local' : ''}${share ? ' screen-share' : ''}`, dataset: { uid: user.uid, key }, role: 'group' },
      video, avatar, hand, caption, el('div', { class: 'label' }, quality, name, mic));
    const tile = { key, uid: user.uid, share, shareType, root, video, avatar, name, mic, hand, quality, caption };
    this.tiles.set(key, tile);
    if (shareType === ShareType.whiteBoard) {
      name.textContent = `${user.nickname} is presenting a whiteboard`;
      root.classList.add('whiteboard-share');
      root.setAttribute('aria-label', `${user.nickname}'s whiteboard`);
      video.hidden = true;
      mic.hidden = true;
      avatar.replaceChildren(`${user.nickname}'s whiteboard`);
    } else if (share) {
      name.textContent = `${user.nickname} is sharing`;
      root.setAttribute('aria-label', `${user.nickname}'s screen`);
      avatar.hidden = true;
      mic.hidden = true;
      if (mine && this.meeting.screenTrack) video.srcObject = new MediaStream([this.meeting.screenTrack.mediaStreamTrack]);
      else if (!mine) this.meeting.startPlayRemoteVideo(video, user.uid, TrackDesc.screen).catch((e) => toast(`Shared screen: ${errorText(e)}`));
    } else {
      if (!mine) this.meeting.startPlayRemoteVideo(video, user.uid, TrackDesc.cameraBig, { layerBySize: true }).catch((e) => toast(`Video of ${user.nickname}: ${errorText(e)}`));
      this.#updateTile(user);
    }
    $('stage').append(root);
    return tile;
  }

  #updateTile(user) {
    const tile = this.tiles.get(user.uid);
    if (!tile) return;
    const mine = user.uid === this.meeting.currentUserId;
    const role = user.role === 'host' ? ' (host)' : user.role === 'co_host' ? ' (co-host)' : '';
    tile.name.textContent = `${user.nickname}${mine ? ' (you)' : ''}${role}`;
    tile.mic.hidden = user.micState === 'on';
    tile.avatar.hidden = user.cameraState === 'on';
    // My camera is shown from its capture (after a reconnection the SDK reopens it without a view).
    const camera = mine ? this.meeting.cameraTrack?.mediaStreamTrack : null;
    if (camera && tile.video.srcObject?.getVideoTracks()[0] !== camera) tile.video.srcObject = new MediaStream([camera]);
    tile.hand.hidden = !user.handRaised;
    tile.root.setAttribute('aria-label', `${user.nickname}${user.micState === 'on' ? '' : ', muted'}${user.handRaised ? ', hand raised' : ''}`);
  }

  #removeTile(key) {
    const tile = this.tiles.get(key);
    if (!tile) return;
    this.tiles.delete(key);
    const mine = tile.uid === this.meeting.currentUserId;
    if (!mine && this.meeting.isInRoom && tile.shareType !== ShareType.whiteBoard) {
      this.meeting.stopPlayRemoteVideo(tile.video, tile.uid, tile.share ? TrackDesc.screen : TrackDesc.cameraBig).catch(() => {});
    }
    tile.video.srcObject = null;
    tile.root.remove();
  }

  /** The tile of the room's share (a screen or a whiteboard), when its sharer is where I am. */
  #syncShareTile(room) {
    const shared = room?.sharingUid && [ShareType.screen, ShareType.whiteBoard].includes(room.shareType) ? room.shareType : 0;
    for (const [key, tile] of this.tiles) {
      if (tile.share && (room?.sharingUid !== tile.uid || shared !== tile.shareType)) this.#removeTile(key);
    }
    const sharer = room?.sharingUid ? this.meeting.getUsersInfo().get(room.sharingUid) : null;
    if (sharer && !this.#here(sharer)) this.#removeTile(`share:${room.sharingUid}`);
    else if (shared && !this.tiles.has(`share:${room.sharingUid}`)) {
      const user = sharer ?? { uid: room.sharingUid, nickname: room.sharingUid };
      this.#ensureTile(user, `share:${room.sharingUid}`, shared);
      if (this.layout === 'grid' && room.sharingUid !== this.meeting.currentUserId) this.layout = 'speaker';
    }
    this.#applyLayout();
  }

  /**
   * A tile per ingress of the (sub-)meeting this member is in: an ingress publishes in the
   * channel of the main meeting or of the sub-meeting it was made for (`subMeetingId`). Its
   * avatar shows until the encoder's video plays: nobody pushes yet, or the push waits for its
   * next key frame (a passed-through stream cannot be asked for one).
   */
  #syncIngressTiles(room) {
    const here = this.meeting.currentSubMeetingId ?? null;
    const ingresses = (room?.ingresses ?? []).filter((i) => (i.subMeetingId ?? null) === here);
    const wanted = new Set(ingresses.map((i) => i.uid));
    for (const [key, tile] of this.tiles) if (tile.ingress && !wanted.has(key)) this.#removeTile(key);
    for (const ingress of ingresses) {
      if (this.tiles.has(ingress.uid)) continue;
      const tile = this.#ensureTile({ uid: ingress.uid, nickname: ingress.nickname, role: 'member', micState: 'on', cameraState: 'on', handRaised: false });
      tile.ingress = true;
      tile.root.classList.add('ingress');
      tile.avatar.hidden = false;
      tile.video.addEventListener('playing', () => { tile.avatar.hidden = true; });
      tile.video.addEventListener('emptied', () => { tile.avatar.hidden = false; });
    }
    this.#applyLayout();
  }

  #speakers(speakers) {
    const loud = new Set(speakers.map((s) => s.uid));
    for (const tile of this.tiles.values()) tile.root.classList.toggle('speaking', !tile.share && loud.has(tile.uid));
    const top = speakers.find((s) => s.uid !== this.meeting.currentUserId)?.uid;
    if (top && top !== this.speakerUid) {
      this.speakerUid = top;
      if (this.layout === 'speaker') this.#applyLayout();
    }
  }

  #quality(uid, quality) {
    const mine = !uid || uid === this.meeting.currentUserId;
    const node = mine ? $('my-quality') : this.tiles.get(uid)?.quality;
    const tileNode = mine ? this.tiles.get(this.meeting.currentUserId)?.quality : null;
    for (const n of [node, tileNode]) {
      if (!n) continue;
      n.className = `quality ${quality}`;
      n.setAttribute('aria-label', `connection quality ${quality}`);
    }
  }

  /** Grid: every tile in columns by count. Speaker: the share (or the active speaker) big, the rest in a strip. */
  #applyLayout() {
    const stage = $('stage');
    const tiles = [...this.tiles.values()];
    stage.className = `stage ${this.layout}`;
    if (this.layout === 'grid') {
      const cols = Math.ceil(Math.sqrt(tiles.length || 1));
      stage.style.setProperty('--cols', String(cols));
      stage.style.setProperty('--cols-narrow', String(tiles.length > 2 ? 2 : 1));
      stage.replaceChildren(...tiles.map((t) => t.root));
    } else {
      const featured = tiles.find((t) => t.share)
        ?? tiles.find((t) => t.uid === this.speakerUid && !t.share)
        ?? tiles.find((t) => t.uid !== this.meeting.currentUserId) ?? tiles[0];
      const strip = tiles.filter((t) => t !== featured);
      stage.replaceChildren(
        el('div', { class: 'featured' }, featured?.root ?? ''),
        el('div', { class: 'strip' }, strip.map((t) => t.root)));
      for (const t of tiles) t.root.style.height = t === featured ? '100%' : '';
    }
    // Moving a playing <video> in the DOM pauses it.
    for (const t of tiles) t.video.play?.().catch(() => {});
    this.#renderControls();
  }
}
