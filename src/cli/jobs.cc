#include "cli/jobs.h"

#include <sched.h>

#include <algorithm>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"

namespace perftk::cli {

int DefaultJobs(int most) {
  cpu_set_t cpus;
  const int available = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
  return std::clamp(available, 1, std::min(kDefaultJobsCap, most));
}

void AddJobsOption(CLI::App& app, int* jobs, int most, const char* what) {
  app.add_option("--jobs", *jobs,
                 absl::StrCat(what, "; default: the CPUs available, at most ",
                              std::min(kDefaultJobsCap, most), " (here ", DefaultJobs(most), ")"))
      ->check(CLI::Range(1, most));
}

}  // namespace perftk::cli
