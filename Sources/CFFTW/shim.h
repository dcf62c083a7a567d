#ifndef REPEATER_CFFTW_SHIM_H
#define REPEATER_CFFTW_SHIM_H
// Single-precision FFTW (fftwf_*). <complex.h> is not included first, so fftwf_complex is float[2]
// (a tuple of two Floats in Swift).
#include <fftw3.h>
#endif
