#ifndef REPEATER_CAUBIO_SHIM_H
#define REPEATER_CAUBIO_SHIM_H
#include <aubio/aubio.h>
#endif
