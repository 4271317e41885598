// PocketSphinx (speech to text) and the sphinxbase pieces its API uses, plus a typed wrapper for
// the variadic cmd_ln_init Swift cannot call.
#ifndef SRTC_CPOCKETSPHINX_SHIM_H
#define SRTC_CPOCKETSPHINX_SHIM_H
#include <pocketsphinx.h>
#include <sphinxbase/err.h>
/// A decoder configuration: acoustic model directory, n-gram language model, dictionary; the
/// library's log goes to `logfn` ("/dev/null" to keep it quiet). `featparams`, when not NULL,
/// replaces the model's feat.params (whose values win over arguments given here).
static inline cmd_ln_t *srtc_ps_config(const char *hmm, const char *lm, const char *dict, const char *logfn, const char *featparams) {
    if (featparams)
        return cmd_ln_init(NULL, ps_args(), 1, "-hmm", hmm, "-lm", lm, "-dict", dict, "-logfn", logfn, "-featparams", featparams, NULL);
    return cmd_ln_init(NULL, ps_args(), 1, "-hmm", hmm, "-lm", lm, "-dict", dict, "-logfn", logfn, NULL);
}
#endif
