// libvpx VP8 and VP9 encoders and decoders, plus wrappers for the init and control macros.
#ifndef SRTC_CVPX_SHIM_H
#define SRTC_CVPX_SHIM_H
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>
static inline vpx_codec_err_t srtc_vpx_enc_init(vpx_codec_ctx_t *ctx, const vpx_codec_enc_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_enc_init(ctx, vpx_codec_vp8_cx(), cfg, flags);
}
static inline vpx_codec_err_t srtc_vpx_dec_init(vpx_codec_ctx_t *ctx, const vpx_codec_dec_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_dec_init(ctx, vpx_codec_vp8_dx(), cfg, flags);
}
static inline vpx_codec_err_t srtc_vpx_enc_init_vp9(vpx_codec_ctx_t *ctx, const vpx_codec_enc_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_enc_init(ctx, vpx_codec_vp9_cx(), cfg, flags);
}
static inline vpx_codec_err_t srtc_vpx_dec_init_vp9(vpx_codec_ctx_t *ctx, const vpx_codec_dec_cfg_t *cfg, vpx_codec_flags_t flags) {
    return vpx_codec_dec_init(ctx, vpx_codec_vp9_dx(), cfg, flags);
}
static inline vpx_codec_err_t srtc_vpx_control_int(vpx_codec_ctx_t *ctx, int id, int value) {
    return vpx_codec_control_(ctx, id, value);
}
static inline vpx_codec_err_t srtc_vpx_control_int_ptr(vpx_codec_ctx_t *ctx, int id, int *value) {
    return vpx_codec_control_(ctx, id, value);
}
// Controls that take a struct (VP9E_SET_SVC_PARAMETERS, VP9E_GET_SVC_LAYER_ID).
static inline vpx_codec_err_t srtc_vpx_control_ptr(vpx_codec_ctx_t *ctx, int id, void *value) {
    return vpx_codec_control_(ctx, id, value);
}
#endif
