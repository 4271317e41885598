// libaom's AV1 encoder (Debian libaom-dev), plus wrappers for its init and control macros.
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
#endif
