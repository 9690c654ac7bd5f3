#include "pipeline/progress.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace perftk::pipeline {

Progress::Progress(std::string label, uint64_t total)
    : label_(std::move(label)),
      total_(total),
      enabled_(!label_.empty() && isatty(STDERR_FILENO) == 1) {}

Progress::Progress(std::string label, uint64_t total, std::string items)
    : Progress(std::move(label), total) {
  items_ = std::move(items);
}

Progress::~Progress() {
  if (drawn_) std::fputs("\r\033[K", stderr);
}

void Progress::Update(uint64_t done) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  const bool last_item = !items_.empty() && done == total_;
  if (drawn_ && now - last_ < std::chrono::milliseconds(100) && !last_item) return;
  last_ = now;
  drawn_ = true;
  if (!items_.empty()) {
    std::fprintf(stderr, "\r%s: %llu of %llu %s", label_.c_str(),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total_),
                 items_.c_str());
    std::fflush(stderr);
    return;
  }
  // In MiB, as perf counts the sizes it prints (perf record's "wrote 28.5 MB").
  constexpr double kMiB = 1024.0 * 1024.0;
  const double mib = static_cast<double>(done) / kMiB;
  if (total_ > 0) {
    std::fprintf(stderr, "\r%s: %3d%% (%.1f of %.1f MiB)", label_.c_str(),
                 static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total_)),
                 mib, static_cast<double>(total_) / kMiB);
  } else {
    std::fprintf(stderr, "\r%s: %.1f MiB", label_.c_str(), mib);
  }
  std::fflush(stderr);
}

}  // namespace perftk::pipeline
