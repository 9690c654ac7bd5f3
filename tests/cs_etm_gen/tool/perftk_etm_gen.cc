// perftk_etm_gen: writes a large synthetic CoreSight ETMv4 recording for
// benchmarking `perftk cs-etm-decode`.
//
//   perftk_etm_gen --cpus 4 --trace-mb 200 --out DIR
//
// DIR gets etm_demo (the traced user binary), etm_kernel.elf (the kernel
// image its syscalls enter) and perf.data, whose MMAP2 records name those two
// files by absolute path. Each CPU runs the threads of several processes
// that share etm_demo, switching threads inside AUX buffers; the trace is
// formatted CoreSight frames (or raw with --raw), with timestamps unless
// --no-timestamps, from ETMv4 trace units (ETE ones with --ete). Prints
// what it wrote on one line.
//
// With --expect-itrace=i<N>il<M> --expect-out FILE it also writes, from the
// simulator's ground truth, the instruction samples cs-etm-decode must make
// with that --itrace, one line each: "cpu pid/tid ip from>to ..." (hex,
// branch stack newest first), in decode order per CPU.
//
// With --expect-autofdo FILE it writes what create_llvm_prof (AutoFDO 0.19)
// must report per function of etm_demo (autofdo_model.h), one line each:
// "text|perf NAME TOTAL HEAD" for --profiler=text on --format=autofdo and
// --profiler=perf on the perf.data that --expect-itrace synthesizes; text
// lines end with the instructions executed in the function.
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "autofdo_model.h"
#include "cpu_tracer.h"
#include "cs_etm/itrace.h"
#include "etm_encoder.h"
#include "expected.h"
#include "programs.h"
#include "recording_writer.h"

namespace perftk::etm_gen {
namespace {

struct Options {
  uint32_t cpus = 4;
  double trace_mb = 200;
  std::string out;
  uint32_t buffer_kb = 256;
  uint64_t seed = 1;
  bool raw = false;
  bool no_timestamps = false;
  bool ete = false;
  uint32_t switch_every = 4000;  // waypoints between thread switches
  int syscall_per_mille = 30;
  std::string expect_itrace = "i1000il64";
  std::string expect_out;
  std::string expect_autofdo;
  uint64_t text_vaddr_delta = 0;
};

// Writes expected instruction samples as lines, and AutoFDO's expected
// function counts (see the file comment).
class ExpectationWriter {
 public:
  static absl::StatusOr<std::unique_ptr<ExpectationWriter>> Create(
      const Options& options, const DemoPrograms& programs, std::map<int32_t, uint64_t> bases) {
    absl::StatusOr<cs_etm::ItraceOptions> itrace = cs_etm::ParseItrace(options.expect_itrace);
    if (!itrace.ok()) return itrace.status();
    if (!itrace->instructions || itrace->branches) {
      return absl::InvalidArgumentError("--expect-itrace wants instruction samples only (i...)");
    }
    std::unique_ptr<ExpectationWriter> self(new ExpectationWriter);
    ExpectOptions expect;
    expect.instructions = true;
    expect.period = itrace->period;
    expect.last_branch = itrace->last_branch;
    expect.last_branch_size = itrace->last_branch_size;
    for (uint32_t cpu = 0; cpu < options.cpus; ++cpu) {
      self->models_.push_back(std::make_unique<ExpectedSampleModel>(cpu, expect));
    }
    if (!options.expect_out.empty()) {
      self->file_ = std::fopen(options.expect_out.c_str(), "w");
      if (self->file_ == nullptr) return absl::InternalError("cannot write " + options.expect_out);
    }
    if (!options.expect_autofdo.empty()) {
      self->autofdo_path_ = options.expect_autofdo;
      self->autofdo_ = std::make_unique<AutoFdoModel>(programs, std::move(bases));
    }
    return self;
  }
  ~ExpectationWriter() {
    if (file_ != nullptr) std::fclose(file_);
  }
  void Feed(uint32_t cpu, const CpuTruth& truth) {
    models_[cpu]->Feed(truth.events);
    if (autofdo_) autofdo_->AddTruth(truth.events);
    for (const ExpectedSample& s : models_[cpu]->Take()) {
      if (autofdo_) autofdo_->AddSample(s);
      if (file_ == nullptr) continue;
      std::fprintf(file_, "%u %d/%d %lx", cpu, s.context.pid, s.context.tid,
                   static_cast<unsigned long>(s.ip));
      for (const auto& [from, to] : s.branches) {
        std::fprintf(file_, " %lx>%lx", static_cast<unsigned long>(from),
                     static_cast<unsigned long>(to));
      }
      std::fputc('\n', file_);
    }
  }
  absl::Status Close() {
    if (file_ != nullptr) {
      int failed = std::ferror(file_) | std::fclose(file_);
      file_ = nullptr;
      if (failed) return absl::InternalError("cannot write the expectations");
    }
    return autofdo_ ? WriteAutoFdo() : absl::OkStatus();
  }

 private:
  ExpectationWriter() = default;
  absl::Status WriteAutoFdo() {
    std::FILE* file = std::fopen(autofdo_path_.c_str(), "w");
    if (file == nullptr) return absl::InternalError("cannot write " + autofdo_path_);
    for (const auto& [name, counts] : autofdo_->TextRoute()) {
      std::fprintf(
          file, "text %s %lu %lu %lu\n", name.c_str(), static_cast<unsigned long>(counts.total),
          static_cast<unsigned long>(counts.head), static_cast<unsigned long>(counts.instructions));
    }
    for (const auto& [name, counts] : autofdo_->PerfRoute()) {
      std::fprintf(file, "perf %s %lu %lu\n", name.c_str(),
                   static_cast<unsigned long>(counts.total),
                   static_cast<unsigned long>(counts.head));
    }
    int failed = std::ferror(file) | std::fclose(file);
    return failed ? absl::InternalError("cannot write " + autofdo_path_) : absl::OkStatus();
  }

  std::vector<std::unique_ptr<ExpectedSampleModel>> models_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<AutoFdoModel> autofdo_;
  std::string autofdo_path_;
};

constexpr int kProcesses = 4;
constexpr int kThreadsPerProcess = 2;

absl::Status Generate(const Options& options) {
  std::error_code error;
  std::filesystem::create_directories(options.out, error);
  if (error) return absl::InternalError("cannot create " + options.out + ": " + error.message());
  const std::string dir = std::filesystem::absolute(options.out).string();
  absl::StatusOr<DemoPrograms> built = BuildDemoPrograms();
  if (!built.ok()) return built.status();
  DemoPrograms programs = std::move(*built);
  if (options.text_vaddr_delta % 4096 != 0) {
    return absl::InvalidArgumentError("--text-vaddr-delta must be a multiple of 4096");
  }
  programs.user.text_vaddr_delta = options.text_vaddr_delta;
  if (absl::Status s = WriteTo(programs, dir); !s.ok()) return s;

  RecordingLayout layout;
  layout.nr_cpus = options.cpus;
  layout.timestamps = !options.no_timestamps;
  layout.ete = options.ete;
  layout.user_binary = programs.user_path;
  layout.user_size = std::filesystem::file_size(programs.user_path);
  layout.kernel_image = programs.kernel_path;
  layout.kernel_base = kKernelBase;
  layout.kernel_size = std::filesystem::file_size(programs.kernel_path);
  std::vector<ThreadState> threads;
  std::map<int32_t, uint64_t> bases;
  for (int p = 0; p < kProcesses; ++p) {
    ProcessMapping process;
    process.pid = 1000 + 100 * p;
    process.comm = "etm_demo";
    process.base = 0x550000000000ULL + 0x1000000000ULL * p;
    bases[process.pid] = process.base;
    for (int t = 0; t < kThreadsPerProcess; ++t) {
      int32_t tid = process.pid + t;
      process.tids.push_back(tid);
      threads.push_back(MakeThread(programs, process.pid, tid, process.base,
                                   RandomDecider(programs, process.base, options.seed * 977 + tid,
                                                 700, options.syscall_per_mille)));
    }
    layout.processes.push_back(process);
  }
  const std::string path = dir + "/perf.data";
  absl::StatusOr<std::unique_ptr<RecordingWriter>> writer = RecordingWriter::Create(path, layout);
  if (!writer.ok()) return writer.status();

  std::unique_ptr<ExpectationWriter> expectations;
  if (!options.expect_out.empty() || !options.expect_autofdo.empty()) {
    absl::StatusOr<std::unique_ptr<ExpectationWriter>> created =
        ExpectationWriter::Create(options, programs, bases);
    if (!created.ok()) return created.status();
    expectations = std::move(*created);
  }
  std::vector<CpuTracer> tracers;
  std::vector<size_t> running;  // thread index per cpu
  for (uint32_t cpu = 0; cpu < options.cpus; ++cpu) {
    tracers.emplace_back(cpu, options.no_timestamps ? 0 : 64);
    running.push_back(cpu % threads.size());
    const ThreadState& t = threads[running.back()];
    if (absl::Status s = (*writer)->StartCpu(cpu, t.pid, t.tid, 1000); !s.ok()) return s;
  }
  // Threads are handed out so that no thread runs on two CPUs at once:
  // CPU c only ever runs threads c, c + cpus, c + 2 cpus, ...
  const uint64_t target = static_cast<uint64_t>(options.trace_mb * 1024 * 1024);
  const size_t buffer_bytes = size_t{options.buffer_kb} * 1024;
  uint64_t time = 2000;
  uint64_t waypoints = 0;
  while ((*writer)->trace_bytes() < target) {
    for (uint32_t cpu = 0; cpu < options.cpus && (*writer)->trace_bytes() < target; ++cpu) {
      CpuTracer& tracer = tracers[cpu];
      const ThreadState& last = threads[running[cpu]];
      const int32_t prev_pid = last.pid, prev_tid = last.tid;
      tracer.BeginBuffer(time);
      tracer.Enter(threads[running[cpu]]);
      while (tracer.encoder().size() < buffer_bytes) {
        if (absl::Status s = tracer.Run(threads[running[cpu]], 1000); !s.ok()) return s;
        if (tracer.waypoints() % options.switch_every < 1000) {
          size_t next = running[cpu] + options.cpus;
          running[cpu] = next < threads.size() ? next : cpu % threads.size();
          tracer.SwitchTo(threads[running[cpu]]);
        }
      }
      std::vector<uint8_t> trace = tracer.EndBuffer();
      // The thread the buffer ends with was switched in during it.
      const ThreadState& now = threads[running[cpu]];
      if (now.tid != prev_tid) {
        if (absl::Status s = (*writer)->SwitchIn(cpu, now.pid, now.tid, prev_pid, prev_tid, time);
            !s.ok()) {
          return s;
        }
      }
      CpuTruth truth = tracer.TakeTruth();
      if (expectations) expectations->Feed(cpu, truth);
      if (!options.raw) {
        FrameFormatter formatter;
        formatter.Add(TraceIdOfCpu(cpu), trace);
        trace = formatter.Finish();
      }
      if (absl::Status s = (*writer)->AddBuffer(cpu, time, trace, options.raw); !s.ok()) return s;
      ++time;
    }
  }
  for (const CpuTracer& tracer : tracers) waypoints += tracer.waypoints();
  if (absl::Status s = (*writer)->Finish(); !s.ok()) return s;
  if (expectations) {
    if (absl::Status s = expectations->Close(); !s.ok()) return s;
  }
  std::printf("perftk_etm_gen: %s: %u cpus, %.1f MB of %s ETMv4 trace, %lu waypoints\n",
              path.c_str(), options.cpus, (*writer)->trace_bytes() / 1048576.0,
              options.raw ? "raw" : "formatted", static_cast<unsigned long>(waypoints));
  return absl::OkStatus();
}

}  // namespace
}  // namespace perftk::etm_gen

int main(int argc, char** argv) {
  perftk::etm_gen::Options options;
  CLI::App app("Writes a synthetic CoreSight ETMv4 perf.data for benchmarks");
  app.add_option("--cpus", options.cpus, "CPUs (trace sources), 1..64")->check(CLI::Range(1, 64));
  app.add_option("--trace-mb", options.trace_mb, "megabytes of trace to write")
      ->check(CLI::PositiveNumber);
  app.add_option("--out", options.out, "directory for perf.data and the binaries")->required();
  app.add_option("--buffer-kb", options.buffer_kb, "AUX buffer size in KiB")
      ->check(CLI::Range(1, 1 << 20));
  app.add_option("--seed", options.seed, "seed of the branch decisions");
  app.add_option("--syscalls-per-mille", options.syscall_per_mille,
                 "how often (of 1000 loop rounds) a thread makes a syscall into the kernel image")
      ->check(CLI::Range(0, 1000));
  app.add_option("--switch-every", options.switch_every, "waypoints between thread switches")
      ->check(CLI::Range(1000, 1 << 30));
  app.add_option("--expect-itrace", options.expect_itrace,
                 "with --expect-out: the --itrace (i<N>il<M>) to write expected samples for");
  app.add_option("--expect-out", options.expect_out,
                 "write the instruction samples the ground truth gives to this file");
  app.add_option("--expect-autofdo", options.expect_autofdo,
                 "write what create_llvm_prof must report per function to this file");
  app.add_option("--text-vaddr-delta", options.text_vaddr_delta,
                 "etm_demo's code at virtual address = file offset + this (lld's layout), "
                 "in a second PT_LOAD; a multiple of 4096")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 32));
  app.add_flag("--raw", options.raw, "raw (unformatted) trace instead of CoreSight frames");
  app.add_flag("--no-timestamps", options.no_timestamps, "no timestamp packets");
  app.add_flag("--ete", options.ete, "ETE 1.0 trace units instead of ETMv4.2");
  CLI11_PARSE(app, argc, argv);
  absl::Status status = perftk::etm_gen::Generate(options);
  if (!status.ok()) {
    std::fprintf(stderr, "perftk_etm_gen: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
