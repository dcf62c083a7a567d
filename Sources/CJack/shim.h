#ifndef REPEATER_CJACK_SHIM_H
#define REPEATER_CJACK_SHIM_H
#include <jack/jack.h>
#include <jack/types.h>
#include <jack/midiport.h>
#include <jack/transport.h>
#include <jack/thread.h>

/// jack_client_open is C-variadic, which Swift cannot call: this fixed-arity wrapper passes the
/// server name only when one is given (otherwise libjack honours $JACK_DEFAULT_SERVER).
static inline jack_client_t *cjack_client_open(const char *client_name, jack_options_t options,
                                               jack_status_t *status, const char *server_name) {
    if (server_name != NULL) {
        return jack_client_open(client_name, (jack_options_t)(options | JackServerName), status, server_name);
    }
    return jack_client_open(client_name, options, status);
}
#endif
