// SMeeting web SDK: the server-side composite video (MCU). Every camera of the meeting in one
// picture, made by the server's egress module (docs/egress.md) and published in the meeting's
// channel under a uid of its own, which is no member and no channel user. A `mix` meeting has one
// from its start, under `SMeetingEngine.mixCompositeUid`; a backend can start one in any
// meeting's channel. Mixed into `SMeetingEngine`; the views are `RemoteVideoViews`' (counted, and
// following the composite's track when its worker restarts and publishes it again).

import { SMeetingError } from './errors.js';
import { MeetingMode, TrackDesc } from './models.js';

/** The uid a `mix` meeting's composite is published under (docs/meeting-protocol.md). */
export const MIX_COMPOSITE_UID = 'mcu';

/** How long a `mix` meeting's composite is waited for (it starts with the meeting). */
const MIX_COMPOSITE_WAIT_MS = 5000;

export const McuMethods = {
  /**
   * Subscribes to the composite video published under `uid` and shows it in `view` (a `<video>`).
   * Requires the server to have a composite task set up; in a `mix` meeting it waits up to 5 s
   * for the composite that starts with the meeting.
   * @returns {Promise<RemoteTrack>} the composite's video track.
   * @throws {SMeetingError} `notInMeeting`; `internalError` when there is no composite video under
   *   `uid` (a member's uid is never one).
   */
  async startPlayRemoteVideoMcu(view, uid) {
    const channel = this._inMeeting();
    uid = String(uid ?? '');
    const composite = () => (this._users.has(uid) ? null
      : channel.remoteTracksOf(uid).find((t) => t.desc === TrackDesc.cameraBig && !t.isEnded) ?? null);
    let track = composite();
    if (!track && !this._users.has(uid) && this._room?.mode === MeetingMode.mix) {
      await channel.waitFor('didAddTrack', (user, t) => t.uid === uid && t.desc === TrackDesc.cameraBig, MIX_COMPOSITE_WAIT_MS)
        .catch(() => {});
      track = this._channel === channel ? composite() : null;
    }
    if (!track) throw SMeetingError.internal(`no composite video under uid ${uid}`);
    // A view showing another composite lets go of it first.
    if (this._mcuViews.has(view) && this._mcuViews.get(view) !== uid) await this.stopPlayRemoteVideoMcu(view);
    this._mcuViews.set(view, uid);
    try {
      await this._views.start(view, uid, TrackDesc.cameraBig, {});
    } catch (error) {
      await this.stopPlayRemoteVideoMcu(view);
      throw SMeetingError.from(error);
    }
    return track;
  },

  /** Stops showing the composite in `view`; unsubscribes once no view shows it. Never throws. */
  async stopPlayRemoteVideoMcu(view) {
    const uid = this._mcuViews.get(view);
    if (uid === undefined) return;
    this._mcuViews.delete(view);
    if (!this._room || !this._channel) return;
    await this._views.stop(view, uid, TrackDesc.cameraBig).catch((e) => this._log('debug', `composite view: ${e.message}`));
  },
};
