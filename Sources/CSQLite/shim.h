#ifndef SRTC_CSQLITE_SHIM_H
#define SRTC_CSQLITE_SHIM_H
#include <sqlite3.h>
// SQLITE_TRANSIENT is a macro around a cast Swift cannot import.
static inline sqlite3_destructor_type srtc_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
