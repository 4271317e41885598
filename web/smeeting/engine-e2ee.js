// End-to-end encrypted meetings (`createRoom({e2ee: true})`, docs/e2ee.md "E2EE meetings"): the
// meeting's channel encrypts every frame under keys from a meeting key the host's page makes and
// seals to each member; the key exchange travels as data messages on the channel (topic
// `smeeting.e2ee`), which the server forwards unread. Events: `e2eeKeyDidChange {status}`,
// `e2eeMessageWasRefused {from, reason}`.
import { KEY_TOPIC, MeetingE2EE } from './e2ee-meeting.js';

/** How long the host's page waits after a member left for others leaving with it (the Swift SDK waits as long). */
export const E2EE_LEAVE_SETTLE_MS = 500;

export const E2EEMethods = {
  /** The key in use `{epoch, verificationCode, members}`, or null (no E2EE meeting, or no key yet). */
  get e2eeStatus() { return this._e2ee?.status ?? null; },

  /** Channel options for the meeting's channel: E2EE with a fresh key pair when the meeting is encrypted. */
  async _prepareE2EE() {
    this._e2ee = this._room?.e2ee ? await MeetingE2EE.create() : null;
    return this._e2ee ? { e2ee: { keyProvider: this._e2ee.provider } } : {};
  },

  /** After the join: the host makes the first key; everyone announces its public key. */
  _startKeyExchange(channel) {
    const e2ee = this._e2ee;
    if (!e2ee) return;
    for (const off of this._e2eeOffs ?? []) off();  // a channel joined again (a resumed or moved session)
    this._e2eeOffs = [channel.on('didReceiveData', (m) => {
      if (m.topic === KEY_TOPIC && !m.encrypted && m.from) this._receiveKeyMessage(e2ee, channel, m.data, m.from);
    })];
    if (this._amHost) this._rotateMeetingKey();
    this._sendKeyMessage(channel, e2ee.announcement, undefined);
  },

  get _amHost() { return this._uid !== null && this._uid === this._room?.hostUid; },

  async _receiveKeyMessage(e2ee, channel, bytes, from) {
    try {
      const result = await e2ee.receive(bytes, from, this._uid, this._room?.hostUid);
      if (result.status) { this.emit('e2eeKeyDidChange', { status: result.status }); return; }
      const member = result.announced;
      if (this._amHost) {
        // A key already held changes nothing; rotating for it would carry out a pending leave
        // before the others leaving with it are seen (E2EE_LEAVE_SETTLE_MS), one epoch more.
        if (result.isNew && this._users.has(member)) this._rotateMeetingKey();
      } else if (member === this._room?.hostUid) {
        this._sendKeyMessage(channel, e2ee.announcement, [member]);
      }
    } catch (error) {
      this.emit('e2eeMessageWasRefused', { from, reason: error.reason ?? String(error) });
    }
  },

  /** A member entered: the host's page rotates when its public key came first. */
  _e2eeMemberEntered(uid) {
    if (this._e2ee && this._amHost && this._e2ee.knowsKey(uid)) this._rotateMeetingKey();
  },

  /**
   * A member left: forgotten, and the host's page rotates so it decrypts nothing sent from now on,
   * once for all the members that leave within E2EE_LEAVE_SETTLE_MS (a host removing several).
   */
  _e2eeMemberLeft(uid) {
    if (!this._e2ee) return;
    this._e2ee.forget(uid);
    if (!this._amHost || this._e2eeRotationTimer) return;
    this._e2eeRotationTimer = setTimeout(() => {
      this._e2eeRotationTimer = null;
      if (this._amHost) this._rotateMeetingKey();
    }, E2EE_LEAVE_SETTLE_MS);
  },

  /** The host role moved here: a new key. */
  _e2eeHostChanged() {
    if (this._e2ee && this._amHost) this._rotateMeetingKey(true);
  },

  /** Host: a new key, unless it would go to the members that hold the one in use (`evenIfRosterUnchanged`: a new host). */
  async _rotateMeetingKey(evenIfRosterUnchanged = false) {
    const e2ee = this._e2ee, channel = this._channel;
    if (!e2ee || !channel) return;
    if (!evenIfRosterUnchanged && !e2ee.rotationChangesRoster(this._uid, [...this._users.keys()])) return;
    const rotated = await e2ee.rotate(this._uid, [...this._users.keys()]);
    if (!rotated) { this.emit('e2eeMessageWasRefused', { from: this._uid, reason: "the meeting's 256 key epochs are used up" }); return; }
    for (const { uid, bytes } of rotated.messages) this._sendKeyMessage(channel, bytes, [uid]);
    this.emit('e2eeKeyDidChange', { status: rotated.status });
  },

  /** Sends a key-exchange message, retrying while the channel's data channel is still opening. */
  async _sendKeyMessage(channel, bytes, to) {
    for (let attempt = 0; attempt < 100; attempt++) {
      try {
        channel.publishData(bytes, { to, topic: KEY_TOPIC });
        return;
      } catch (error) {
        if (error?.kind !== 'wrongState') return;  // only a data channel still opening is retried
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  },
};
