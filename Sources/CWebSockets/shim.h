#include <libwebsockets.h>

/// LWS_PRE (a macro Swift cannot import): the room lws_write needs before a payload.
static inline size_t repeater_lws_pre(void) { return LWS_PRE; }
