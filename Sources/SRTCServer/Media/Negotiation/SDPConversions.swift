import RTCTransport
import RTCWire
import SFU
import SRTCProtocol

/// Turning negotiated SDP sections into the SFU's RTP parameters and transport parameters.
enum SDPConversions {
    /// The remote ICE credentials and DTLS fingerprint of a description (session or first section).
    static func remoteTransport(of sdp: SessionDescription) throws(SignalError) -> (ICECredentials, DTLSFingerprint, SetupRole?) {
        guard let section = sdp.media.first(where: { !$0.isRejected }) ?? sdp.media.first else {
            throw SignalError(.invalidParameter, "SDP has no media section")
        }
        guard let ufrag = sdp.iceUfrag(of: section), let pwd = sdp.icePwd(of: section) else {
            throw SignalError(.invalidParameter, "SDP lacks a=ice-ufrag / a=ice-pwd")
        }
        guard let fingerprint = sdp.fingerprints(of: section).first(where: { $0.algorithm.lowercased() == "sha-256" }) else {
            throw SignalError(.invalidParameter, "SDP lacks a sha-256 a=fingerprint")
        }
        let dtls: DTLSFingerprint
        do { dtls = try DTLSFingerprint(sdpValue: fingerprint.description) } catch {
            throw SignalError(.invalidParameter, "bad a=fingerprint")
        }
        return (ICECredentials(ufrag: ufrag, pwd: pwd), dtls, sdp.setup(of: section))
    }

    /// The SFU's codec parameters for an SDP codec.
    static func codec(_ c: Codec) -> RTPCodecParameters {
        var fmtp: [String: String] = [:]
        for p in c.parameters { fmtp[p.key] = p.value ?? "" }
        return RTPCodecParameters(name: c.name, payloadType: c.payloadType, clockRate: c.clockRate,
                                  channels: Int(c.channels ?? 1), fmtp: fmtp, rtcpFeedback: c.feedback)
    }

    /// Header extensions of a section as the SFU takes them (ids fit in the one-byte form here).
    static func extensions(_ section: MediaDescription) -> [RTPHeaderExtensionParameters] {
        section.extensions.compactMap { e in e.id <= 255 ? RTPHeaderExtensionParameters(uri: e.uri, id: UInt8(e.id)) : nil }
    }

    /// A publisher's producer parameters: the answer's codecs and extensions, the offer's
    /// encodings (rids best first, with the layer descriptions of the publish request, or the SSRC).
    static func producerParameters(offer: MediaDescription, answer: MediaDescription, track: PublishTrack) -> RTPParameters {
        var encodings: [RTPEncodingParameters]
        let rids = offer.simulcast?.sendRIDs ?? offer.rids.filter { $0.direction == .send }.map(\.id)
        if !rids.isEmpty {
            let ordered = track.layers.isEmpty ? rids : track.layers.map(\.rid).filter(rids.contains)
            encodings = ordered.map { rid in
                let layer = track.layers.first { $0.rid == rid }
                return RTPEncodingParameters(rid: rid, layer: layer?.desc ?? rid, maxBitrate: layer?.maxBitrate)
            }
        } else if let ssrc = primarySSRC(offer) {
            encodings = [RTPEncodingParameters(ssrc: ssrc)]
        } else {
            encodings = [RTPEncodingParameters()]
        }
        var parameters = RTPParameters(mid: answer.mid, codecs: answer.codecs.filter { !$0.isRTX }.map(codec),
                                       headerExtensions: extensions(answer), encodings: encodings,
                                       cname: offer.ssrcs.first { $0.name == "cname" }?.value)
        // One stream with layers: a scalable (SVC) stream whose layers are its spatial layers.
        if rids.isEmpty { parameters.spatialLayers = track.layers.map(\.desc) }
        return parameters
    }

    /// The media SSRC of a single-stream section (the first of an FID group, else the first listed).
    static func primarySSRC(_ section: MediaDescription) -> UInt32? {
        if let fid = section.ssrcGroups.first(where: { $0.semantics == "FID" }) { return fid.ssrcs.first }
        return section.ssrcList.first
    }
}
