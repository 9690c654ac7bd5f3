// Progress of long work on stderr, as "perftk copy: 42% (12.0 of 28.5 MB)".
// Silent unless stderr is a terminal; redraws at most ten times a second.
#ifndef PERFTK_INJECT_PROGRESS_H_
#define PERFTK_INJECT_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace perftk {

class Progress {
 public:
  // `total` is 0 when unknown (a pipe): then only the amount done is shown.
  Progress(std::string label, uint64_t total);
  ~Progress();
  void Update(uint64_t done);

 private:
  std::string label_;
  uint64_t total_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace perftk

#endif  // PERFTK_INJECT_PROGRESS_H_
