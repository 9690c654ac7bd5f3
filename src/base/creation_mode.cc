#include "base/creation_mode.h"

#include <sys/stat.h>

#include <atomic>

namespace perftk::base {
namespace {

constexpr mode_t kReadWrite = 0666;
std::atomic<mode_t> creation_mode{kReadWrite};

}  // namespace

void LimitCreationModeTo(mode_t recording_mode) {
  creation_mode.fetch_and(recording_mode & kReadWrite);
}

mode_t FileCreationMode() { return creation_mode.load(); }

mode_t NarrowedMode(mode_t mode) { return mode & 07777 & ~(kReadWrite & ~FileCreationMode()); }

mode_t DirectoryCreationMode() {
  const mode_t file = FileCreationMode();
  return file | ((file & 0444) >> 2);
}

}  // namespace perftk::base
