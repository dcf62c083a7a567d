#ifndef REPEATER_CSOXR_SHIM_H
#define REPEATER_CSOXR_SHIM_H
#include <soxr.h>
#endif
