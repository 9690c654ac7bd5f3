// What it takes to run several OpenCSD decode trees on several threads.
//
// OpenCSD 1.3.3 keeps process-wide state: the list of decode trees, the C
// API's table of callbacks per tree, the lazily made decoder registry, and
// one default error logger that every tree reports to (its "last error" is
// a heap object every logged error overwrites, without a lock). Decoding
// with one tree per thread is safe once
//   - trees are created and destroyed only with OpenCsdSetupMutex() held, and
//   - the default error logger logs nothing (QuietOpenCsdErrorLog()), so
//     decoding never writes to it. Decode errors are then known only by the
//     responses of the datapath calls, which the decoder counts and words.
#ifndef PERFTK_CS_ETM_OPENCSD_GUARD_H_
#define PERFTK_CS_ETM_OPENCSD_GUARD_H_

#include <mutex>

namespace perftk::cs_etm {

std::mutex& OpenCsdSetupMutex();

// Sets the default error logger to log nothing. Idempotent, thread-safe.
void QuietOpenCsdErrorLog();

}  // namespace perftk::cs_etm

#endif  // PERFTK_CS_ETM_OPENCSD_GUARD_H_
