#ifndef REPEATER_CRUBBERBAND_SHIM_H
#define REPEATER_CRUBBERBAND_SHIM_H
#include <rubberband/rubberband-c.h>
#endif
