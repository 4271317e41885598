// Spatial and temporal layers of VP9 with libvpx's SVC encoder (vpx_encoder.h `ss_number_layers`,
// `ts_number_layers`, `layer_target_bitrate`; vp8cx.h VP9E_SET_SVC, VP9E_SET_SVC_PARAMETERS,
// VP9E_SET_SVC_INTER_LAYER_PRED). libvpx places the layers itself: temporal layering mode 0212
// (T0 T2 T1 T2, the pattern `ScalabilityMode.temporalPattern` names), each spatial layer half the
// width and height of the one above, and with inter-layer prediction "off on non-key pictures" an
// upper spatial layer refers to the lower one only in key pictures (the `_KEY` modes). One
// `vpx_codec_encode` yields the picture's layer frames as a superframe, cut here into
// `layerFrames` (one per spatial layer encoded) for the RTP sender (RFC 9628 §4: each layer frame
// is its own payload sequence).
//
// Dynacast (`setActiveSpatialLayers`): an upper spatial layer gets a target bitrate of 0, which
// libvpx takes as "skip this layer"; raising it again forces a key picture, from which that layer
// can be decoded (without inter-layer prediction after key pictures there is no other entry).
import CVPX
import RTCWire

extension VPXEncoder {
    /// Share of the bitrate the half-size layer gets with two spatial layers (as for AV1).
    static let lowerSpatialShare = 25
    /// Bitrate of temporal layers T0, T0+T1, T0+T1+T2, percent of their spatial layer's.
    static let temporalShares = [50, 75, 100]

    /// Sets the layer counts, the temporal pattern and each layer's bitrate in `settings`
    /// (kbit/s; libvpx's layer rates are cumulative over temporal layers, not over spatial ones).
    /// Layers at or above `activeSpatialLayers` get 0: libvpx does not encode them.
    func configureLayerRates() {
        let mode = configuration.scalabilityMode
        activeSpatialLayers = min(max(activeSpatialLayers, 1), mode.spatialLayers)
        settings.ss_number_layers = UInt32(mode.spatialLayers)
        settings.ts_number_layers = UInt32(mode.temporalLayers)
        settings.temporal_layering_mode = mode.temporalLayers == 3 ? Int32(VP9E_TEMPORAL_LAYERING_MODE_0212.rawValue)
                                                                   : Int32(VP9E_TEMPORAL_LAYERING_MODE_NOLAYERING.rawValue)
        let total = configuration.bitrate / 1_000
        withUnsafeMutableBytes(of: &settings.ts_rate_decimator) { raw in
            let decimators = raw.bindMemory(to: UInt32.self)
            for t in 0 ..< mode.temporalLayers { decimators[t] = UInt32(1 << (mode.temporalLayers - 1 - t)) }
        }
        settings.ts_periodicity = UInt32(mode.temporalLayers == 3 ? 4 : 1)
        withUnsafeMutableBytes(of: &settings.ts_layer_id) { raw in
            let ids = raw.bindMemory(to: UInt32.self)
            for position in 0 ..< 4 { ids[position] = UInt32(mode.temporalID(position: position)) }
        }
        withUnsafeMutableBytes(of: &settings.layer_target_bitrate) { raw in
            let rates = raw.bindMemory(to: UInt32.self)
            for s in 0 ..< mode.spatialLayers {
                let share = mode.spatialLayers == 1 ? 100 : s == 0 ? Self.lowerSpatialShare : 100 - Self.lowerSpatialShare
                for t in 0 ..< mode.temporalLayers {
                    let temporal = mode.temporalLayers == 1 ? 100 : Self.temporalShares[t]
                    rates[s * mode.temporalLayers + t] = s < activeSpatialLayers ? UInt32(max(1, total * share / 100 * temporal / 100)) : 0
                }
            }
        }
        var active = 0
        withUnsafeBytes(of: &settings.layer_target_bitrate) { raw in
            let rates = raw.bindMemory(to: UInt32.self)
            for s in 0 ..< mode.spatialLayers { active += Int(rates[s * mode.temporalLayers + mode.temporalLayers - 1]) }
        }
        settings.rc_target_bitrate = UInt32(max(1, active))
    }

    /// Turns SVC on for the open encoder with each layer's scaling and quantizer range.
    func configureLayers() throws {
        let mode = configuration.scalabilityMode
        var status = srtc_vpx_control_int(context, Int32(VP9E_SET_SVC.rawValue), 1)
        guard status == VPX_CODEC_OK else { throw VP8CodecError.initializationFailed(VP8CodecError.message(status, context)) }
        var params = vpx_svc_extra_cfg_t()
        withUnsafeMutableBytes(of: &params.max_quantizers) { maxs in
            withUnsafeMutableBytes(of: &params.min_quantizers) { mins in
                for layer in 0 ..< mode.spatialLayers * mode.temporalLayers {
                    maxs.bindMemory(to: Int32.self)[layer] = Int32(configuration.maxQuantizer)
                    mins.bindMemory(to: Int32.self)[layer] = Int32(configuration.minQuantizer)
                }
            }
        }
        withUnsafeMutableBytes(of: &params.scaling_factor_num) { num in
            withUnsafeMutableBytes(of: &params.scaling_factor_den) { den in
                withUnsafeMutableBytes(of: &params.speed_per_layer) { speeds in
                    for s in 0 ..< mode.spatialLayers {
                        num.bindMemory(to: Int32.self)[s] = 1
                        den.bindMemory(to: Int32.self)[s] = Int32(1 << (mode.spatialLayers - 1 - s))
                        speeds.bindMemory(to: Int32.self)[s] = Int32(configuration.cpuUsed)
                    }
                }
            }
        }
        withUnsafeMutableBytes(of: &params.loopfilter_ctrl) { raw in
            for s in 0 ..< mode.spatialLayers { raw.bindMemory(to: Int32.self)[s] = 0 }  // LOOPFILTER_ALL
        }
        params.temporal_layering_mode = settings.temporal_layering_mode
        status = srtc_vpx_control_ptr(context, Int32(VP9E_SET_SVC_PARAMETERS.rawValue), &params)
        guard status == VPX_CODEC_OK else { throw VP8CodecError.initializationFailed(VP8CodecError.message(status, context)) }
        // 2: inter-layer prediction off except in key pictures (vp8cx.h).
        status = srtc_vpx_control_int(context, Int32(VP9E_SET_SVC_INTER_LAYER_PRED.rawValue), 2)
        guard status == VPX_CODEC_OK else { throw VP8CodecError.initializationFailed(VP8CodecError.message(status, context)) }
    }

    /// Dynacast inside SVC: encode spatial layers `0 ..< count` only (clamped to the mode's). The
    /// same stream goes on with fewer layer frames per picture; a raised count makes the next
    /// picture a key picture, where the restarted layer can be decoded from.
    public func setActiveSpatialLayers(_ count: Int) throws {
        let mode = configuration.scalabilityMode
        let count = min(max(count, 1), mode.spatialLayers)
        guard mode != .l1t1, count != activeSpatialLayers else { return }
        let raised = count > activeSpatialLayers
        activeSpatialLayers = count
        configureLayerRates()
        let status = vpx_codec_enc_config_set(context, &settings)
        guard status == VPX_CODEC_OK else { throw VP8CodecError.encodeFailed(VP8CodecError.message(status, context)) }
        if raised { requestKeyFrame() }
    }

    /// Cuts the superframe `frame.data` into its layer frames: which spatial layers libvpx encoded
    /// (`encoded`, lowest first), the picture's temporal layer (VP9E_GET_SVC_LAYER_ID) and whether
    /// it is a key picture.
    func describeLayers(of frame: inout EncodedVideoFrame, encoded: (UInt8, UInt8, UInt8, UInt8, UInt8)) {
        let mode = configuration.scalabilityMode
        var layer = vpx_svc_layer_id_t()
        _ = srtc_vpx_control_ptr(context, Int32(VP9E_GET_SVC_LAYER_ID.rawValue), &layer)
        let temporal = mode.temporalLayers == 1 ? 0 : Int(layer.temporal_layer_id)
        let spatialIDs = withUnsafeBytes(of: encoded) { raw in (0 ..< mode.spatialLayers).filter { raw[$0] != 0 } }
        var layers: [EncodedLayerFrame] = []
        frame.data.withUnsafeBytes { data in
            VP9Superframe.forEachFrame(in: data) { range in
                let index = layers.count
                let spatial = index < spatialIDs.count ? spatialIDs[index] : index
                layers.append(EncodedLayerFrame(range: range, spatialID: spatial, temporalID: temporal, templateID: 0,
                                                isKeyFrame: frame.isKeyFrame))
            }
        }
        frame.layerFrames = layers
        frame.scalabilityMode = mode
    }
}
