#ifndef REPEATER_CSNDFILE_SHIM_H
#define REPEATER_CSNDFILE_SHIM_H
#include <sndfile.h>
#endif
