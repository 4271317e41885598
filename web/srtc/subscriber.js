// SRTC web SDK: the subscribe transport. The server offers (one m-section per subscribed track,
// `a=msid:<uid> <track id>`), the browser answers recvonly, revision by revision; an unsubscribed
// m-section turns inactive and is reused later (docs/protocol.md, `subscriber_offer`).

import { decodeDelivery } from './data-packet.js';
import { ServerErrorCode } from './errors.js';
import { camelize } from './models.js';
import { retireConnection } from './path-monitor.js';
import { parseMediaSections, sends, trackIdOf } from './sdp.js';

/** The events the server sends on the data channel once it is open (docs/protocol.md, "Data channels"). */
const DATA_CHANNEL_EVENTS = new Set(['quality_report', 'connection_quality', 'active_speakers', 'layer_switched', 'caption']);

export class Subscriber {
  #channel;
  #queue = Promise.resolve();
  /** mid → remote track id, as the last applied offer says. */
  #bound = new Map();
  /** The m-sections of the offer being applied / last applied. */
  #lastSections = [];
  /** The connection `renew` replaced, open until the new one has connected (`retireConnection`). */
  #retired = null;

  /**
   * @param {boolean} useDataChannel create the negotiated channels (the client asked for them in `join`).
   */
  constructor(channel, rtcConfiguration, useDataChannel = false) {
    this.#channel = channel;
    this.rtcConfiguration = rtcConfiguration;
    this.useDataChannel = useDataChannel;
    /** Events that arrived on the data channel. */
    this.dataChannelEvents = 0;
    /** The two `RTCDataChannel`s (reliable id 0, lossy id 1), once the connection exists. */
    this.dataChannels = null;
    /** The `RTCPeerConnection`, once the server sent an offer. */
    this.pc = null;
    /** The newest offer revision seen; older offers are skipped, never answered. */
    this.latestRevision = 0;
    /** The revision last answered. */
    this.answeredRevision = 0;
    /** The connection was closed for a new one (`renew`), which the server's next offer makes. */
    this.renewing = false;
  }

  #ensurePc() {
    if (this.pc) return this.pc;
    const pc = new RTCPeerConnection(this.rtcConfiguration);
    pc.addEventListener('iceconnectionstatechange', () => {
      if (this.pc === pc) this.#channel._transportStateChanged('subscribe', pc.iceConnectionState);
    });
    // Binding happens after each offer is applied; `track` covers a browser that reports a
    // receiver's track only through this event.
    pc.addEventListener('track', (e) => this.#bindTransceiver(e.transceiver, this.#lastSections));
    if (this.useDataChannel) this.#openDataChannels(pc);
    this.pc = pc;
    if (this.#retired) {
      retireConnection(this.#retired, pc);
      this.#retired = null;
    }
    if (this.renewing) {
      this.renewing = false;
      this.#channel.emit('transportDidRenew', 'subscribe');
    }
    return pc;
  }

  /** The two channels negotiated out of band (RFC 8831 §6.5): ids 0 and 1, no DCEP. */
  #openDataChannels(pc) {
    const events = pc.createDataChannel('srtc', { negotiated: true, id: 0 });
    const lossy = pc.createDataChannel('srtc-lossy', { negotiated: true, id: 1, ordered: false, maxRetransmits: 0 });
    this.dataChannels = { reliable: events, lossy };
    for (const [dc, reliable] of [[events, true], [lossy, false]]) {
      dc.binaryType = 'arraybuffer';
      dc.addEventListener('message', (e) => {
        if (typeof e.data === 'string') return;
        const packet = decodeDelivery(e.data);
        if (packet) this.#channel._dataMessage({ ...packet, reliable });
      });
    }
    events.addEventListener('message', (e) => {
      if (typeof e.data !== 'string') return;
      let message;
      try { message = JSON.parse(e.data); } catch { return; }
      if (!DATA_CHANNEL_EVENTS.has(message?.type)) return;
      this.dataChannelEvents += 1;
      this.#channel._dataChannelEvent(message.type, camelize(message.data ?? {}));
    });
  }

  /** Sends a kind-1 data packet on the reliable or the lossy channel; false when it is not open. */
  sendData(packet, reliable) {
    const dc = reliable ? this.dataChannels?.reliable : this.dataChannels?.lossy;
    if (dc?.readyState !== 'open') return false;
    dc.send(packet);
    return true;
  }

  /** Handles `subscriber_offer {sdp, revision}`: applied in order, answered with `subscriber_answer`. */
  handleOffer({ sdp, revision }) {
    this.latestRevision = Math.max(this.latestRevision, revision);
    const task = async () => {
      if (revision < this.latestRevision) {
        this.#channel._log('debug', `skipping subscriber offer ${revision}: ${this.latestRevision} is newer`);
        return;
      }
      const pc = this.#ensurePc();
      this.#lastSections = parseMediaSections(sdp);
      await pc.setRemoteDescription({ type: 'offer', sdp });
      await pc.setLocalDescription(await pc.createAnswer());
      this.#bindAll();
      try {
        await this.#channel._request('subscriber_answer', { sdp: pc.localDescription.sdp, revision });
        this.answeredRevision = revision;
      } catch (e) {
        // A newer offer is on its way when the server calls this one stale.
        if (e.code === ServerErrorCode.wrongState && this.latestRevision > revision) return;
        throw e;
      }
    };
    const run = this.#queue.then(task, task);
    this.#queue = run.catch((e) => this.#channel._log('warn', `subscriber offer ${revision} failed: ${e.message}`));
    return run;
  }

  /** Asks the server for an ICE restart; it answers with a new `subscriber_offer`. */
  async restartIce() {
    if (!this.pc) return;
    await this.#channel._request('restart_ice', { transport: 'subscribe' });
  }

  /**
   * Replaces the connection by a new one (the device's address changed, docs/network.md
   * "Addresses that change"): the old one is set aside (closed once the new one is connected,
   * `retireConnection`), its tracks unbound, and the ICE restart asked
   * for here brings a `subscriber_offer` with every m-section and fresh credentials, which a new
   * connection (same certificate, new data channels) answers; the server takes its new DTLS
   * association. Remote tracks get new `MediaStreamTrack`s (`trackDidBindRtcTrack` again).
   * Resolves `false` when it cannot (no connection yet, no shared certificate).
   */
  renew() {
    const task = async () => {
      const old = this.pc;
      if (!old || !this.rtcConfiguration.certificates) return false;
      this.pc = null;
      this.#retired = old;
      this.dataChannels = null;
      for (const [mid, trackId] of [...this.#bound]) this.#channel._remoteTrackUnbound(trackId, mid);
      this.#bound.clear();
      this.renewing = true;
      await this.requestRenewedOffer();
      return true;
    };
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Asks for the offer a renewal waits for (again after a resume, when the first ask was lost). */
  requestRenewedOffer() {
    return this.#channel._request('restart_ice', { transport: 'subscribe' });
  }

  /** Binds each transceiver's received track to its remote track, and unbinds m-sections no longer sending. */
  #bindAll() {
    const known = new Set(this.#channel.remoteTracks.map((t) => t.id));
    const byMid = new Map(this.#lastSections.map((s) => [s.mid, s]));
    for (const [mid, trackId] of [...this.#bound]) {
      const section = byMid.get(mid);
      if (!section || !sends(section.direction) || trackIdOf(section, known) !== trackId || section.port === 0) {
        this.#bound.delete(mid);
        this.#channel._remoteTrackUnbound(trackId, mid);
      }
    }
    for (const transceiver of this.pc.getTransceivers()) this.#bindTransceiver(transceiver, this.#lastSections);
  }

  #bindTransceiver(transceiver, sections) {
    const mid = transceiver?.mid;
    if (mid == null) return;
    const section = sections.find((s) => s.mid === mid);
    if (!section || !sends(section.direction) || section.port === 0) return;
    const known = new Set(this.#channel.remoteTracks.map((t) => t.id));
    const trackId = trackIdOf(section, known);
    if (!trackId) return;
    this.#bound.set(mid, trackId);
    // Decrypted as frames of the track's publisher (set again when the m-section is reused).
    this.#channel._e2ee?.attachReceiver(transceiver.receiver, transceiver.receiver.track.kind, this.#channel._remoteTracks.get(trackId)?.uid);
    this.#channel._remoteTrackBound(trackId, transceiver.receiver.track, mid);
  }

  /** The remote track id carried by `mid`, if any. */
  trackIdForMid(mid) { return this.#bound.get(mid) ?? null; }

  /** Closes the connection. */
  close() {
    this.pc?.close();
    this.pc = null;
    this.#retired?.close();
    this.#retired = null;
    this.renewing = false;
    this.#bound.clear();
    this.latestRevision = 0;
    this.answeredRevision = 0;
  }
}
