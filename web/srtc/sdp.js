// SRTC web SDK: the little SDP reading the SDK needs (RFC 8866 lines; the browser does the rest).
// The server's subscriber offer names the remote track of each m-section with
// `a=msid:<uid> <track id>` (RFC 8830); the SDK binds each receiver's MediaStreamTrack by mid.

/**
 * The m-sections of an SDP: `{index, kind, port, mid, direction, msid: {stream, track} | null,
 * rids: [{id, direction}], simulcast}`. `direction` defaults to `sendrecv` (RFC 8866 §6.7).
 */
export function parseMediaSections(sdp) {
  const sections = [];
  let session = { direction: 'sendrecv' };
  let current = null;
  for (const raw of String(sdp).split(/\r?\n/)) {
    const line = raw.trim();
    if (line.startsWith('m=')) {
      const [kind, port] = line.slice(2).split(' ');
      current = { index: sections.length, kind, port: Number(port), mid: null, direction: null, msid: null, rids: [], simulcast: null };
      sections.push(current);
      continue;
    }
    if (!line.startsWith('a=')) continue;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line.slice(2) : line.slice(2, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1);
    if (['sendrecv', 'sendonly', 'recvonly', 'inactive'].includes(name)) {
      if (current) current.direction = name; else session.direction = name;
      continue;
    }
    if (!current) continue;
    switch (name) {
      case 'mid': current.mid = value; break;
      case 'msid': {
        const [stream, track] = value.split(' ');
        current.msid = { stream, track: track ?? null };
        break;
      }
      case 'rid': {
        const [id, direction] = value.split(' ');
        current.rids.push({ id, direction });
        break;
      }
      case 'simulcast': current.simulcast = value; break;
      default: break;
    }
  }
  for (const s of sections) if (!s.direction) s.direction = session.direction;
  return sections;
}

/** Whether a section's direction (as written by its author) sends media. */
export function sends(direction) {
  return direction === 'sendrecv' || direction === 'sendonly';
}

/**
 * The remote track id an m-section of the server's offer carries: the msid track id, or the
 * msid stream id when that is the one among `knownIds` (a server may write either order).
 */
export function trackIdOf(section, knownIds) {
  if (!section?.msid) return null;
  const { stream, track } = section.msid;
  if (track && (!knownIds || knownIds.has(track))) return track;
  if (stream && knownIds?.has(stream)) return stream;
  return track ?? null;
}
