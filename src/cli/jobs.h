// --jobs, the same for every subcommand that runs threads: by default as
// many threads as the CPUs this process may run on, at most
// kDefaultJobsCap and at most what the subcommand can use. (No short
// option: perf inject's -j is --jit.)
#ifndef PERFTK_CLI_JOBS_H_
#define PERFTK_CLI_JOBS_H_

namespace CLI {
class App;
}

namespace perftk::cli {

inline constexpr int kDefaultJobsCap = 8;

// The CPUs sched_getaffinity allows, capped at kDefaultJobsCap and `most`.
int DefaultJobs(int most);

// Adds --jobs N, checked in [1, most]; `*jobs` keeps 0 when it is not
// given (for ResolveJobs). `what` says what a thread does.
void AddJobsOption(CLI::App& app, int* jobs, int most, const char* what);

// `jobs`, or DefaultJobs(most) for 0.
inline int ResolveJobs(int jobs, int most) { return jobs == 0 ? DefaultJobs(most) : jobs; }

}  // namespace perftk::cli

#endif  // PERFTK_CLI_JOBS_H_
