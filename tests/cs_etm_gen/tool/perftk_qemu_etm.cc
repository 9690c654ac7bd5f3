// perftk_qemu_etm: a CoreSight recording of a real aarch64 program, made
// from qemu-user's log of every instruction it executed, with the ground
// truth of that execution (qemu_recorder.h).
//
//   qemu-aarch64 -L /usr/aarch64-linux-gnu -singlestep -d exec,nochain -strace
//       -D /dev/stderr ./prog ARGS 2>&1 >prog.out |
//     perftk_qemu_etm --program ./prog --prefix /usr/aarch64-linux-gnu
//       --out perf.data --truth-autofdo truth.afdo
// (one shell line each). With --blocks, the log is qemu's without
// -singlestep, with -d in_asm,exec,nochain: one line per translation block
// run, several times faster, the same recording and truth.
//
// The log is read from stdin as a stream, one line at a time. truth.afdo is
// the AutoFDO text `perftk cs-etm-decode --format=autofdo` must write for
// perf.data (every binary, every range and branch, every count);
// --truth-bolt-dir DIR writes DIR/<file name>.bolt, what --format=bolt
// --dso <file name> must write. With
// --expect-itrace=i<N>il<M> --expect-out FILE it also writes the
// instruction samples `--itrace=i<N>il<M>` must make, from the truth
// (expected.h), one line each: "cpu pid/tid ip from>to ..." (hex, branch
// stack newest first), as perftk_etm_gen does. Prints what it read and
// wrote, and how fast, on one line. Samples are in decode order per CPU
// (sort them by CPU, stably, to compare).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>

#include "CLI/CLI.hpp"
#include "cs_etm/itrace.h"
#include "expected.h"
#include "profile/autofdo_text.h"
#include "profile/bolt_text.h"
#include "qemu_recorder.h"

namespace perftk::etm_gen {
namespace {

// Writes the samples the truth gives, buffer by buffer.
class SampleWriter {
 public:
  ~SampleWriter() {
    if (file_ != nullptr) std::fclose(file_);
  }
  absl::Status Open(const std::string& itrace_text, const std::string& path) {
    absl::StatusOr<cs_etm::ItraceOptions> itrace = cs_etm::ParseItrace(itrace_text);
    if (!itrace.ok()) return itrace.status();
    if (!itrace->instructions || itrace->branches) {
      return absl::InvalidArgumentError("--expect-itrace wants instruction samples only (i...)");
    }
    ExpectOptions expect;
    expect.instructions = true;
    expect.period = itrace->period;
    expect.last_branch = itrace->last_branch;
    expect.last_branch_size = itrace->last_branch_size;
    expect_ = expect;
    file_ = std::fopen(path.c_str(), "w");
    if (file_ == nullptr) return absl::InternalError("cannot write " + path);
    return absl::OkStatus();
  }
  void Feed(uint32_t cpu, const std::vector<TruthEvent>& events) {
    std::unique_ptr<ExpectedSampleModel>& model = models_[cpu];
    if (!model) model = std::make_unique<ExpectedSampleModel>(cpu, expect_);
    model->Feed(events);
    for (const ExpectedSample& s : model->Take()) {
      std::fprintf(file_, "%u %d/%d %lx", s.cpu, s.context.pid, s.context.tid,
                   static_cast<unsigned long>(s.ip));
      for (const auto& [from, to] : s.branches) {
        std::fprintf(file_, " %lx>%lx", static_cast<unsigned long>(from),
                     static_cast<unsigned long>(to));
      }
      std::fputc('\n', file_);
    }
  }
  absl::Status Close() {
    const bool write_failed = std::ferror(file_) != 0;
    const bool close_failed = std::fclose(file_) != 0;  // closed either way
    file_ = nullptr;
    return write_failed || close_failed ? absl::InternalError("cannot write the expected samples")
                                        : absl::OkStatus();
  }

 private:
  ExpectOptions expect_;
  std::map<uint32_t, std::unique_ptr<ExpectedSampleModel>> models_;
  std::FILE* file_ = nullptr;
};

// Writes the BOLT text of every binary of `truth` as DIR/<file name>.bolt.
absl::Status WriteBoltTexts(const profile::Profile& truth, const std::string& dir) {
  for (const auto& [key, counts] : truth.binaries()) {
    const std::string path =
        dir + "/" + std::filesystem::path(key.path).filename().string() + ".bolt";
    std::FILE* out = std::fopen(path.c_str(), "w");
    if (out == nullptr) return absl::InternalError("cannot write " + path);
    const std::string text = profile::BoltText(key, counts);
    const bool failed = std::fwrite(text.data(), 1, text.size(), out) != text.size();
    if ((std::fclose(out) != 0) | failed) return absl::InternalError("cannot write " + path);
  }
  return absl::OkStatus();
}

absl::Status Run(QemuRecorderOptions options, const std::string& truth_path,
                 const std::string& bolt_dir, const std::string& expect_itrace,
                 const std::string& expect_out) {
  SampleWriter samples;
  if (!expect_out.empty()) {
    if (absl::Status s = samples.Open(expect_itrace, expect_out); !s.ok()) return s;
    options.on_buffer = [&samples](uint32_t cpu, const std::vector<TruthEvent>& events) {
      samples.Feed(cpu, events);
    };
  }
  absl::StatusOr<std::unique_ptr<QemuRecorder>> recorder = QemuRecorder::Create(options);
  if (!recorder.ok()) return recorder.status();
  const auto begin = std::chrono::steady_clock::now();
  std::string line;
  char chunk[1 << 16];
  size_t fill = 0;
  // Lines are split by hand from large reads: getline per line is the
  // bottleneck at hundreds of millions of lines.
  while (true) {
    size_t got = std::fread(chunk + fill, 1, sizeof chunk - fill, stdin);
    size_t end = fill + got;
    size_t start = 0;
    for (size_t i = fill; i < end; ++i) {
      if (chunk[i] != '\n') continue;
      std::string_view view(chunk + start, i - start);
      if (!line.empty()) {
        line.append(view);
        view = line;
      }
      if (absl::Status s = (*recorder)->Line(view); !s.ok()) {
        return absl::Status(s.code(), std::string(s.message()) + " (log line " +
                                          std::to_string((*recorder)->stats().lines) + ")");
      }
      line.clear();
      start = i + 1;
    }
    if (got == 0) {
      if (start < end) line.append(chunk + start, end - start);
      if (!line.empty()) {
        if (absl::Status s = (*recorder)->Line(line); !s.ok()) return s;
      }
      break;
    }
    // Keep the unfinished line: in the buffer when it fits, else aside.
    if (start == 0 && end == sizeof chunk) {
      line.append(chunk, end);
      fill = 0;
    } else {
      std::memmove(chunk, chunk + start, end - start);
      fill = end - start;
    }
  }
  if (std::ferror(stdin)) return absl::DataLossError("cannot read the log from stdin");
  if (absl::Status s = (*recorder)->Finish(); !s.ok()) return s;
  if (!expect_out.empty()) {
    if (absl::Status s = samples.Close(); !s.ok()) return s;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  if (!truth_path.empty()) {
    std::FILE* out = std::fopen(truth_path.c_str(), "w");
    if (out == nullptr) return absl::InternalError("cannot write " + truth_path);
    const std::string text = profile::AutoFdoText((*recorder)->Truth());
    const bool failed = std::fwrite(text.data(), 1, text.size(), out) != text.size();
    if ((std::fclose(out) != 0) | failed) return absl::InternalError("cannot write " + truth_path);
  }
  if (!bolt_dir.empty()) {
    absl::Status s = WriteBoltTexts((*recorder)->Truth(profile::Format::kBolt), bolt_dir);
    if (!s.ok()) return s;
  }
  const QemuRecorderStats& s = (*recorder)->stats();
  std::printf(
      "perftk_qemu_etm: %s: %lu log lines, %lu instructions, %lu waypoints (%lu taken, %lu "
      "indirect), %lu syscalls, %lu mappings, %lu untraced, %lu threads, %lu taken back; %lu "
      "buffers, %.2f MB of trace; %.2f s, %.2f M "
      "lines/s\n",
      options.output.c_str(), static_cast<unsigned long>(s.lines),
      static_cast<unsigned long>(s.instructions), static_cast<unsigned long>(s.waypoints),
      static_cast<unsigned long>(s.taken), static_cast<unsigned long>(s.indirect),
      static_cast<unsigned long>(s.syscalls), static_cast<unsigned long>(s.mappings),
      static_cast<unsigned long>(s.untraced), static_cast<unsigned long>(s.threads),
      static_cast<unsigned long>(s.taken_back), static_cast<unsigned long>(s.buffers),
      s.trace_bytes / 1048576.0, seconds, seconds > 0 ? s.lines / seconds / 1e6 : 0.0);
  return absl::OkStatus();
}

}  // namespace
}  // namespace perftk::etm_gen

int main(int argc, char** argv) {
  perftk::etm_gen::QemuRecorderOptions options;
  std::string truth, bolt_dir, expect_itrace = "i1000il64", expect_out;
  uint32_t buffer_kb = 64;
  CLI::App app("A CoreSight ETMv4 perf.data of a program, from qemu-aarch64's log on stdin");
  app.add_option("--program", options.program, "the traced program (non-PIE aarch64 ELF)")
      ->required();
  app.add_option("--prefix", options.prefix, "qemu's -L (guest paths are looked up there first)");
  app.add_option("--out", options.output, "the perf.data to write")->required();
  app.add_option("--truth-autofdo", truth, "write the ground truth as AutoFDO text here");
  app.add_option("--truth-bolt-dir", bolt_dir,
                 "write the ground truth of each binary as BOLT text DIR/<file name>.bolt")
      ->check(CLI::ExistingDirectory);
  app.add_option("--expect-itrace", expect_itrace,
                 "with --expect-out: the --itrace (i<N>il<M>) to write expected samples for");
  app.add_option("--expect-out", expect_out,
                 "write the instruction samples the ground truth gives to this file");
  app.add_flag("--blocks", options.blocks,
               "the log is of translation blocks: qemu without -singlestep, with -d "
               "in_asm,exec,nochain (several times faster)");
  app.add_option("--buffer-kb", buffer_kb, "AUX buffer size in KiB")->check(CLI::Range(1, 1 << 20));
  app.add_option("--cpus", options.cpus,
                 "CPUs of the recording: the guest threads it may hold (qemu vCPU N is CPU N)")
      ->check(CLI::Range(1, 64));
  app.add_option("--pid", options.pid, "the pid the recording gives the program")
      ->check(CLI::Range(1, 1 << 22));
  CLI11_PARSE(app, argc, argv);
  options.buffer_bytes = size_t{buffer_kb} * 1024;
  absl::Status status = perftk::etm_gen::Run(options, truth, bolt_dir, expect_itrace, expect_out);
  if (!status.ok()) {
    std::fprintf(stderr, "perftk_qemu_etm: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
