#include "inject/progress.h"

#include <unistd.h>

#include <cstdio>

namespace perftk {

Progress::Progress(std::string label, uint64_t total)
    : label_(std::move(label)), total_(total), enabled_(isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() {
  if (drawn_) std::fputs("\r\033[K", stderr);
}

void Progress::Update(uint64_t done) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  double mb = done / 1e6;
  if (total_ > 0) {
    std::fprintf(stderr, "\r%s: %3d%% (%.1f of %.1f MB)", label_.c_str(),
                 static_cast<int>(100.0 * done / total_), mb, total_ / 1e6);
  } else {
    std::fprintf(stderr, "\r%s: %.1f MB", label_.c_str(), mb);
  }
  std::fflush(stderr);
}

}  // namespace perftk
