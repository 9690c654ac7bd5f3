#include "cs_etm/opencsd_guard.h"

#include <opencsd/c_api/opencsd_c_api.h>

namespace perftk::cs_etm {

std::mutex& OpenCsdSetupMutex() {
  static std::mutex* const mutex = new std::mutex;
  return *mutex;
}

void QuietOpenCsdErrorLog() {
  static std::once_flag once;
  std::call_once(once, [] {
    std::lock_guard lock(OpenCsdSetupMutex());
    ocsd_def_errlog_init(OCSD_ERR_SEV_NONE, 0);
  });
}

}  // namespace perftk::cs_etm
