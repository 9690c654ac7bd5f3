// Progress of long work on stderr, as "perftk copy: 42% (12.0 of 28.5 MiB)",
// or counted in items: "perftk cs-etm-decode: 3 of 10 recordings".
// Silent unless stderr is a terminal; redraws at most ten times a second
// (and once more for the last item). Not thread-safe.
#ifndef PERFTK_PIPELINE_PROGRESS_H_
#define PERFTK_PIPELINE_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <string>

namespace perftk::pipeline {

class Progress {
 public:
  // `total` is 0 when unknown (a pipe): then only the amount done is shown.
  // An empty label shows nothing.
  Progress(std::string label, uint64_t total);
  // Counts `total` items named `items` ("recordings").
  Progress(std::string label, uint64_t total, std::string items);
  ~Progress();
  void Update(uint64_t done);

 private:
  std::string label_;
  uint64_t total_;
  std::string items_;  // empty: bytes
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace perftk::pipeline

#endif  // PERFTK_PIPELINE_PROGRESS_H_
