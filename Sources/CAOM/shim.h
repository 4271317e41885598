// libaom's AV1 encoder (Debian libaom-dev), plus wrappers for its init and control macros (the
// variadic aom_codec_control checks each control's argument type, which Swift cannot call).
#ifndef SRTC_CAOM_SHIM_H
#define SRTC_CAOM_SHIM_H
#include <aom/aom_encoder.h>
#include <aom/aomcx.h>
static inline aom_codec_err_t srtc_aom_enc_init(aom_codec_ctx_t *ctx, const aom_codec_enc_cfg_t *cfg) {
    return aom_codec_enc_init(ctx, aom_codec_av1_cx(), cfg, 0);
}
static inline aom_codec_err_t srtc_aom_control_int(aom_codec_ctx_t *ctx, int id, int value) {
    return aom_codec_control(ctx, id, value);
}
static inline aom_codec_err_t srtc_aom_set_svc_params(aom_codec_ctx_t *ctx, aom_svc_params_t *params) {
    return aom_codec_control(ctx, AV1E_SET_SVC_PARAMS, params);
}
static inline aom_codec_err_t srtc_aom_set_svc_layer_id(aom_codec_ctx_t *ctx, aom_svc_layer_id_t *layer) {
    return aom_codec_control(ctx, AV1E_SET_SVC_LAYER_ID, layer);
}
static inline aom_codec_err_t srtc_aom_set_svc_ref_frame_config(aom_codec_ctx_t *ctx, aom_svc_ref_frame_config_t *config) {
    return aom_codec_control(ctx, AV1E_SET_SVC_REF_FRAME_CONFIG, config);
}
#endif
