// Temporal and spatial layers with libaom's SVC controls (aomcx.h: AV1E_SET_SVC_PARAMS,
// AV1E_SET_SVC_LAYER_ID, AV1E_SET_SVC_REF_FRAME_CONFIG): each temporal unit is encoded once per
// spatial layer, lowest first, with the layer ids and the reference slots its position in the
// T0 T2 T1 T2 pattern calls for, so the frames depend on each other exactly as the Dependency
// Descriptor templates of the mode say (`ScalabilityMode`). libaom writes the layer ids into
// each frame's OBU extension header (AV1 §5.3.3) and scales the lower spatial layer itself.
//
// Reference slots (AV1 has eight): spatial layer s keeps its last T0 frame in slot 2s and its
// last T1 frame in slot 2s + 1. Every frame refers to one of them (LAST_FRAME, and every other
// reference names the same slot):
//   T0 → slot 2s (refreshes 2s)   T2 after T0 → slot 2s   T1 → slot 2s (refreshes 2s + 1)
//   T2 after T1 → slot 2s + 1
// A key frame refreshes all eight, so S1 of the key picture predicts from it (the only spatial
// prediction of a `_KEY` mode); later S1 frames refer to S1 slots alone.
//
// Dynacast leaves the upper layer's encode calls out, but never before libaom has encoded that
// layer once: libaom 3.6 (up to 3.13) sizes its per-64×64 source SAD map for scene detection from
// the top layer's size, which it learns only when it encodes the top layer (svc
// mi_cols/rows_full_resoln, 0 until then). An encoder that starts with the lower layer alone
// allocates the map for 0 blocks, and once the upper layer comes back, scene detection on the
// full-size source writes past it (heap corruption: glibc's "double free or corruption",
// "corrupted double-linked list"). Fixed upstream in libaom 3.14 (commit 703b9a7, "Fix to OOB heap
// reads in rc_scene_detection", aomedia bug 499606109). So the first temporal unit after `open`
// encodes every spatial layer, and the frames of inactive ones are not handed out.
import CAOM
import RTCWire

extension AV1Encoder {
    /// Share of the bitrate the half-size layer gets with two spatial layers.
    static let lowerSpatialShare = 25
    /// Bitrate of temporal layers T0, T0+T1, T0+T1+T2, percent of their spatial layer's.
    static let temporalShares = [50, 75, 100]

    /// Sets the SVC parameters of `configuration.scalabilityMode` on the open encoder.
    func configureLayers() throws {
        let mode = configuration.scalabilityMode
        var params = aom_svc_params_t()
        params.number_spatial_layers = Int32(mode.spatialLayers)
        params.number_temporal_layers = Int32(mode.temporalLayers)
        let total = Int(settings.rc_target_bitrate)
        withUnsafeMutableBytes(of: &params.framerate_factor) { raw in
            let factors = raw.bindMemory(to: Int32.self)
            for t in 0 ..< mode.temporalLayers { factors[t] = Int32(1 << (mode.temporalLayers - 1 - t)) }
        }
        withUnsafeMutableBytes(of: &params.scaling_factor_num) { num in
            withUnsafeMutableBytes(of: &params.scaling_factor_den) { den in
                for s in 0 ..< mode.spatialLayers {
                    num.bindMemory(to: Int32.self)[s] = 1
                    den.bindMemory(to: Int32.self)[s] = Int32(1 << (mode.spatialLayers - 1 - s))
                }
            }
        }
        let (minQ, maxQ) = (Int32(settings.rc_min_quantizer), Int32(settings.rc_max_quantizer))
        withUnsafeMutableBytes(of: &params.layer_target_bitrate) { rates in
            withUnsafeMutableBytes(of: &params.min_quantizers) { mins in
                withUnsafeMutableBytes(of: &params.max_quantizers) { maxs in
                    for s in 0 ..< mode.spatialLayers {
                        let share = mode.spatialLayers == 1 ? 100 : s == 0 ? Self.lowerSpatialShare : 100 - Self.lowerSpatialShare
                        for t in 0 ..< mode.temporalLayers {
                            let layer = s * mode.temporalLayers + t
                            let temporal = mode.temporalLayers == 1 ? 100 : Self.temporalShares[t]
                            rates.bindMemory(to: Int32.self)[layer] = Int32(max(1, total * share / 100 * temporal / 100))
                            mins.bindMemory(to: Int32.self)[layer] = minQ
                            maxs.bindMemory(to: Int32.self)[layer] = maxQ
                        }
                    }
                }
            }
        }
        let status = srtc_aom_set_svc_params(context, &params)
        guard status == AOM_CODEC_OK else { throw AV1CodecError.initializationFailed(AV1CodecError.message(status, context)) }
    }

    /// Encodes one temporal unit of a scalable mode: one frame per spatial layer, concatenated in
    /// `data` and described in `layerFrames`.
    func encodeLayers(_ pixels: VideoPixelBuffer, timestampUs: Int64, forceKeyFrame: Bool) throws -> EncodedVideoFrame? {
        let mode = configuration.scalabilityMode
        let interval = configuration.keyFrameInterval
        let keyPicture = forceKeyFrame || unitsSinceKey == nil || (interval > 0 && unitsSinceKey! >= interval)
        let unit = keyPicture ? 0 : unitsSinceKey!
        let position = unit & 3
        let temporal = mode.temporalID(position: position)
        let (pts, duration) = clock.stamp(timestampUs, frameRate: configuration.frameRate)

        var data: [UInt8] = []
        var layers: [EncodedLayerFrame] = []
        let active = min(activeSpatialLayers, mode.spatialLayers)
        // libaom must have encoded the top layer once (the note at the top of this file).
        for spatial in 0 ..< (topLayerEncoded ? active : mode.spatialLayers) {
            var layer = aom_svc_layer_id_t(spatial_layer_id: Int32(spatial), temporal_layer_id: Int32(temporal))
            var status = srtc_aom_set_svc_layer_id(context, &layer)
            guard status == AOM_CODEC_OK else { throw AV1CodecError.encodeFailed(AV1CodecError.message(status, context)) }
            var references = Self.references(spatial: spatial, position: position)
            status = srtc_aom_set_svc_ref_frame_config(context, &references)
            guard status == AOM_CODEC_OK else { throw AV1CodecError.encodeFailed(AV1CodecError.message(status, context)) }
            let flags: aom_enc_frame_flags_t = keyPicture && spatial == 0 ? aom_enc_frame_flags_t(AOM_EFLAG_FORCE_KF) : 0
            status = pixels.data.withUnsafeBufferPointer { bytes -> aom_codec_err_t in
                wrap(bytes.baseAddress!, width: pixels.width, height: pixels.height)
                return aom_codec_encode(context, image, aom_codec_pts_t(pts), UInt(duration), flags)
            }
            guard status == AOM_CODEC_OK else { throw AV1CodecError.encodeFailed(AV1CodecError.message(status, context)) }
            let start = data.count
            let isKey = takeOutput(appendingTo: &data)
            if spatial == mode.spatialLayers - 1 { topLayerEncoded = true }
            if spatial >= active { data.removeSubrange(start...) }
            guard data.count > start else { continue }
            layers.append(EncodedLayerFrame(range: start ..< data.count, spatialID: spatial, temporalID: temporal,
                                            templateID: mode.templateID(spatialID: spatial, position: position, keyPicture: keyPicture),
                                            isKeyFrame: isKey))
        }
        unitsSinceKey = unit + 1
        guard !data.isEmpty else { return nil }
        var frame = EncodedVideoFrame(data: data, isKeyFrame: keyPicture && layers.first?.isKeyFrame == true, timestampUs: timestampUs,
                                      width: pixels.width, height: pixels.height)
        frame.layerFrames = layers
        frame.scalabilityMode = mode
        frame.activeSpatialLayers = active
        return frame
    }

    /// Dynacast inside SVC: encode spatial layers `0 ..< count` only (clamped to the mode's); the
    /// temporal units then hold fewer layer frames. A raised count makes the next temporal unit a
    /// key picture: the upper layer refers to the lower one only there, and its own reference
    /// slots are stale.
    public func setActiveSpatialLayers(_ count: Int) throws {
        let count = min(max(count, 1), configuration.scalabilityMode.spatialLayers)
        guard count != activeSpatialLayers else { return }
        if count > activeSpatialLayers { requestKeyFrame() }
        activeSpatialLayers = count
    }

    /// The reference slots of the frame of spatial layer `spatial` at pattern `position` (the table
    /// at the top of this file).
    static func references(spatial: Int, position: Int) -> aom_svc_ref_frame_config_t {
        var config = aom_svc_ref_frame_config_t()
        let base = Int32(2 * spatial)
        // All seven references name the one slot: a frame header lists a slot for each (and
        // takes its entropy context from one of them, primary_ref_frame), so a slot the decode
        // target does not hold would break decoders that get only its frames ("Failed to decode
        // tile data" from libaom, EINVAL from dav1d, when only T0 frames were kept).
        withUnsafeMutableBytes(of: &config.ref_idx) { raw in
            let slots = raw.bindMemory(to: Int32.self)
            for i in 0 ..< 7 { slots[i] = position == 3 ? base + 1 : base }
        }
        withUnsafeMutableBytes(of: &config.reference) { raw in raw.bindMemory(to: Int32.self)[0] = 1 }
        withUnsafeMutableBytes(of: &config.refresh) { raw in
            let refresh = raw.bindMemory(to: Int32.self)
            if position == 0 { refresh[Int(base)] = 1 } else if position == 2 { refresh[Int(base) + 1] = 1 }
        }
        return config
    }
}
