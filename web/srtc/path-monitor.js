// SRTC web SDK: a media path that went silent (docs/network.md, "Addresses that change"). A
// browser gives a page no signal when the device's address changes: it reports the ICE
// connection `disconnected` only after its own checks have gone unanswered for several seconds
// (6.5 s in the lab). Media stops at once, though: the server keeps sending to the old address.
// A connected transport that was receiving (2 packets or more in each of two polls in a row) and then receives
// no flow for PATH_SILENCE_MS (nothing, or one packet at most per poll) has the signaling connection checked at once (`mediaPathSilent`): dead too, it is resumed and the
// silent transport ICE-restarted. Once per silence: judged again only after a flow came back.
// A receiving transport gets packets many times a second (audio every 20 ms, the server's RTCP
// feedback every 100 ms on a publishing one), so half a second of nothing is not jitter; the
// stats are read every PATH_POLL_MS so that the silence is seen soon after it reaches that.

/** How long a connected transport that was receiving may receive nothing. */
const PATH_SILENCE_MS = 500;
/** How often the channel reads its transports' byte counts. */
export const PATH_POLL_MS = 250;
/** Packets in one poll that make a flow (the consent checks' answers come one at a time). */
const FLOW_PACKETS = 2;

export class PathMonitor {
  #channel;
  /** transport ('publish' | 'subscribe') → {bytes, packets, lastProgress (ms), reported, streak (polls in a row with a flow)} */
  #paths = new Map();
  #polling = false;

  constructor(channel) {
    this.#channel = channel;
  }

  reset() {
    this.#paths.clear();
  }

  /** Called every PATH_POLL_MS by the channel. */
  tick() {
    if (this.#polling) return;
    const connections = Object.entries(this.#channel.peerConnections)
      .filter(([, pc]) => pc && (pc.iceConnectionState === 'connected' || pc.iceConnectionState === 'completed'));
    if (connections.length === 0) return;
    this.#polling = true;
    Promise.all(connections.map(([transport, pc]) => pc.getStats().then((report) => this.#evaluate(transport, report))))
      .catch(() => {}).finally(() => { this.#polling = false; });
  }

  /** Whether `pc`, the `transport`'s connection, received anything since its silence was seen:
   * its path came back (a link that was down), or it never was silent. */
  async receivingAgain(transport, pc) {
    const path = this.#paths.get(transport);
    if (!path) return true;
    try {
      return bytesReceived(await pc.getStats()) !== path.bytes;
    } catch {
      return true;
    }
  }

  #evaluate(transport, report) {
    const bytes = bytesReceived(report);
    const packets = packetsReceived(report);
    const now = performance.now();
    const path = this.#paths.get(transport);
    if (!path || bytes < path.bytes) {
      // A new connection (its count restarted): watched once it carries a flow.
      this.#paths.set(transport, { bytes, packets, lastProgress: now, reported: true, streak: 0 });
      return;
    }
    if (bytes > path.bytes) {
      // A flow is at least FLOW_PACKETS in a poll; two polls in a row of it arm the watch (media,
      // or the server's RTCP every 100 ms). Fewer is a trickle: a transport with nothing to carry
      // (a publisher's subscribe connection) still gets the answers to its consent checks (RFC
      // 7675), one at a time, every 2.5 s or every 480 ms while Chromium deems the pair unstable
      // (a loaded machine), which is no path to watch; and a path that just broke brings the last
      // packet that came before it. A trickle neither arms nor disarms the watch, and the
      // silence counts from the last flow (a trickle that disarmed it hid an address change).
      const flowing = packets - path.packets >= FLOW_PACKETS;
      path.bytes = bytes;
      path.packets = packets;
      path.streak = flowing ? path.streak + 1 : 0;
      if (!flowing) return;
      path.lastProgress = now;
      if (path.reported && path.streak >= 2) {
        path.reported = false;
        this.#channel._log('debug', `the ${transport} transport receives a flow; watched for silence`);
      }
      return;
    }
    path.streak = 0;
    if (path.reported || now - path.lastProgress < PATH_SILENCE_MS) return;
    path.reported = true;
    this.#channel._log('info', `the ${transport} transport received nothing for ${PATH_SILENCE_MS} ms; checking the paths`);
    this.#channel._mediaPathSilent(transport);
  }
}

/** What a connection's transports received, in packets (`getStats()` report). */
function packetsReceived(report) {
  let packets = 0;
  report.forEach((s) => { if (s.type === 'transport') packets += s.packetsReceived ?? 0; });
  return packets;
}

/** What a connection's transports received, in bytes (`getStats()` report). */
function bytesReceived(report) {
  let bytes = 0;
  report.forEach((s) => { if (s.type === 'transport') bytes += s.bytesReceived ?? 0; });
  return bytes;
}

/** How long a replaced connection stays open after its successor connected, and at most. */
const RETIRE_AFTER_CONNECTED_MS = 1000;
const RETIRE_AT_MOST_MS = 10_000;

/**
 * Closes `old`, replaced by `successor` (a path that broke, docs/network.md "Addresses that
 * change"), a second after `successor` connected, or after RETIRE_AT_MOST_MS: closing sends a
 * DTLS close_notify, which the server takes for the end of the transport as long as the old
 * connection's address is the one its ICE selected, that is until the successor's checks have
 * moved it (on a link that came back, both connections send from the same address).
 */
export function retireConnection(old, successor) {
  let closed = false;
  const close = (delay) => setTimeout(() => {
    if (closed) return;
    closed = true;
    old.close();
  }, delay);
  const connected = () => {
    if (successor.iceConnectionState !== 'connected' && successor.iceConnectionState !== 'completed') return;
    successor.removeEventListener('iceconnectionstatechange', connected);
    close(RETIRE_AFTER_CONNECTED_MS);
  };
  successor.addEventListener('iceconnectionstatechange', connected);
  close(RETIRE_AT_MOST_MS);
}
