#ifndef REPEATER_CFFTWDOUBLE_SHIM_H
#define REPEATER_CFFTWDOUBLE_SHIM_H
// Double-precision FFTW (fftw_*), for the tests' offline measures only: its planner state is
// separate from the single-precision library's, which the engine uses.
#include <fftw3.h>
#endif
