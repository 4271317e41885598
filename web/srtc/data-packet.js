// SRTC web SDK: user data packets on the subscribe connection's data channels (docs/protocol.md,
// "Data messages"). Kind 1 is what a client publishes (recipients, topic, payload); kind 2 is what
// the server delivers (sender, topic, payload). Every length is one byte.

/** The largest packet with its header, either way. */
export const MAX_DATA_PACKET = 16384;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** A kind-1 packet; throws a RangeError naming the field that does not fit. */
export function encodePublish(payload, to = [], topic = '') {
  const uids = to.map((uid) => encoder.encode(String(uid)));
  const topicBytes = encoder.encode(topic ?? '');
  if (uids.length > 255) throw new RangeError('more than 255 recipients');
  if (uids.some((u) => u.length === 0 || u.length > 255)) throw new RangeError('a uid is empty or longer than 255 bytes');
  if (topicBytes.length > 255) throw new RangeError('topic longer than 255 bytes');
  const size = 3 + uids.reduce((n, u) => n + 1 + u.length, 0) + topicBytes.length + payload.length;
  const out = new Uint8Array(size);
  let at = 0;
  out[at++] = 1;
  out[at++] = uids.length;
  for (const u of uids) { out[at++] = u.length; out.set(u, at); at += u.length; }
  out[at++] = topicBytes.length;
  out.set(topicBytes, at); at += topicBytes.length;
  out.set(payload, at);
  return out;
}

/** Reads a kind-2 packet: `{from, topic, data}` (`from` null: the backend), or null if malformed. */
export function decodeDelivery(buffer) {
  const bytes = new Uint8Array(buffer);
  if (bytes.length < 3 || bytes[0] !== 2) return null;
  let at = 1;
  const field = () => {
    if (at >= bytes.length || at + 1 + bytes[at] > bytes.length) throw new RangeError('truncated');
    const value = bytes.subarray(at + 1, at + 1 + bytes[at]);
    at += 1 + bytes[at];
    return value;
  };
  try {
    const from = field(), topic = field();
    return { from: from.length ? decoder.decode(from) : null, topic: topic.length ? decoder.decode(topic) : null,
             data: bytes.slice(at) };
  } catch {
    return null;
  }
}
