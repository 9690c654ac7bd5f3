// Ground truth for `perftk cs-etm-decode`: recordings generated from
// simulated programs (two processes sharing one binary, threads, syscalls
// into a kernel image, trace gaps, timestamps, raw and formatted trace) are
// decoded by the real tool through RunPipeline, and every sample (pid, tid,
// cpu mode, ip, period, time, each branch-stack entry) must equal what the
// simulator's truth says.
#include <stdlib.h>

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cpu_tracer.h"
#include "cs_etm/decode_tool.h"
#include "etm_encoder.h"
#include "expected.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "inject/pipeline.h"
#include "perf/reader.h"
#include "perf/sample.h"
#include "programs.h"
#include "recording_writer.h"

namespace perftk::etm_gen {
namespace {

constexpr uint64_t kBaseA = 0x555500000000ULL;  // process 100's mapping of etm_demo
constexpr uint64_t kBaseB = 0x7f7700000000ULL;  // process 200's mapping of the same file

enum class Packing { kRaw, kFormatted };

struct Decoded {
  bool branch = false;
  uint16_t cpumode = 0;
  Sample sample;
};

struct Decode {
  absl::Status status;
  std::vector<Decoded> samples;
  std::vector<std::string> warnings;
};

std::string Describe(bool branch, uint32_t cpu, int32_t pid, int32_t tid, int el, uint64_t time,
                     uint64_t ip, uint64_t addr, uint64_t period,
                     const std::vector<std::pair<uint64_t, uint64_t>>& stack) {
  std::vector<std::string> entries;
  for (const auto& [from, to] : stack) entries.push_back(absl::StrFormat("%#x->%#x", from, to));
  return absl::StrFormat("%s cpu%d %d/%d EL%d t=%d ip=%#x addr=%#x period=%d [%s]",
                         branch ? "B" : "I", cpu, pid, tid, el, time, ip, addr, period,
                         absl::StrJoin(entries, " "));
}

std::string Describe(const ExpectedSample& e) {
  return Describe(e.branch, e.cpu, e.context.pid, e.context.tid, e.context.el, e.time, e.ip,
                  e.addr, e.period, e.branches);
}

std::string Describe(const Decoded& d) {
  std::vector<std::pair<uint64_t, uint64_t>> stack;
  for (const BranchEntry& e : d.sample.branch_stack.entries) stack.push_back({e.from, e.to});
  int el = d.cpumode == PERF_RECORD_MISC_KERNEL ? 1 : 0;
  return Describe(d.branch, d.sample.cpu, static_cast<int32_t>(d.sample.pid),
                  static_cast<int32_t>(d.sample.tid), el, d.sample.time, d.sample.ip,
                  d.branch ? d.sample.addr : 0, d.sample.period, stack);
}

// "" if equal, else the first differing sample with a little context.
std::string FirstDifference(const std::vector<std::string>& got,
                            const std::vector<std::string>& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  if (i == got.size() && i == want.size()) return "";
  std::string out = absl::StrFormat("sample %d of %d decoded, %d expected\n", i, got.size(),
                                    want.size());
  for (size_t j = i >= 2 ? i - 2 : 0; j < i + 3; ++j) {
    absl::StrAppend(&out, "  got  ", j < got.size() ? got[j] : "-", "\n");
    absl::StrAppend(&out, "  want ", j < want.size() ? want[j] : "-", "\n");
  }
  return out;
}

class GroundTruth : public ::testing::Test {
 public:
  // One AUX buffer: the unformatted trace `cpu` wrote by `time`.
  struct Buffer {
    uint32_t cpu;
    uint64_t time;
    std::vector<uint8_t> bytes;
  };

 protected:
  static void SetUpTestSuite() {
    char dir_template[] = "/tmp/perftk-etm-gen-XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    dir_ = new std::string(dir_template);
    absl::StatusOr<DemoPrograms> programs = BuildDemoPrograms();
    ASSERT_TRUE(programs.ok()) << programs.status();
    programs_ = new DemoPrograms(std::move(*programs));
    ASSERT_TRUE(WriteTo(*programs_, *dir_).ok());
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(*dir_);
    delete dir_;
    delete programs_;
  }

  static RecordingLayout Layout(uint32_t cpus, bool timestamps) {
    RecordingLayout layout;
    layout.nr_cpus = cpus;
    layout.timestamps = timestamps;
    layout.user_binary = programs_->user_path;
    layout.user_size = std::filesystem::file_size(programs_->user_path);
    layout.kernel_image = programs_->kernel_path;
    layout.kernel_base = kKernelBase;
    layout.kernel_size = std::filesystem::file_size(programs_->kernel_path);
    layout.processes = {{100, {100, 101}, "etm_demo", kBaseA}, {200, {200}, "etm_demo", kBaseB}};
    return layout;
  }

  static ThreadState Thread(int32_t pid, int32_t tid, uint64_t seed, int syscall_per_mille = 0) {
    uint64_t base = pid == 100 ? kBaseA : kBaseB;
    return MakeThread(*programs_, pid, tid, base,
                      RandomDecider(*programs_, base, seed, 700, syscall_per_mille));
  }

  // Writes a recording of `buffers`, each formatted or raw.
  static std::string Write(const std::string& name, const RecordingLayout& layout,
                           const std::vector<Buffer>& buffers, Packing packing,
                           const std::map<uint32_t, std::pair<int32_t, int32_t>>& first) {
    std::string path = *dir_ + "/" + name;
    auto writer = RecordingWriter::Create(path, layout);
    EXPECT_TRUE(writer.ok()) << writer.status();
    if (!writer.ok()) return path;
    for (const auto& [cpu, thread] : first) {
      EXPECT_TRUE((*writer)->StartCpu(cpu, thread.first, thread.second, 10).ok());
    }
    for (const Buffer& b : buffers) {
      std::vector<uint8_t> bytes = b.bytes;
      if (packing == Packing::kFormatted) {
        FrameFormatter formatter;
        formatter.Add(TraceIdOfCpu(b.cpu), b.bytes);
        bytes = formatter.Finish();
      }
      EXPECT_TRUE((*writer)->AddBuffer(b.cpu, b.time, bytes, packing == Packing::kRaw).ok());
    }
    EXPECT_TRUE((*writer)->Finish().ok());
    return path;
  }

  static Decode DecodeFile(const std::string& path, const std::string& itrace) {
    Decode run;
    cs_etm::DecodeOptions options;
    options.itrace = *cs_etm::ParseItrace(itrace);
    options.format = cs_etm::OutputFormat::kPerf;
    cs_etm::CsEtmDecodeTool tool(options);
    PipelineOptions pipeline;
    pipeline.input = path;
    pipeline.output = path + ".decoded";
    run.status = RunPipeline(tool, pipeline).status();
    run.warnings = tool.warnings();
    if (!run.status.ok()) return run;
    auto reader = PerfDataReader::Open(pipeline.output);
    if (!reader.ok()) {
      run.status = reader.status();
      return run;
    }
    const Header& header = (*reader)->header();
    while (true) {
      auto record = (*reader)->Next();
      if (!record.ok()) {
        run.status = record.status();
        return run;
      }
      if (!*record) break;
      if ((*record)->type() != PERF_RECORD_SAMPLE) continue;
      auto index = header.events.IndexOf(**record);
      if (!index.ok()) {
        run.status = index.status();
        return run;
      }
      auto sample = DecodeSample(header.events.format(*index), (*record)->body());
      if (!sample.ok()) {
        run.status = sample.status();
        return run;
      }
      Decoded d;
      d.branch = header.events.attrs()[*index].config() == 4;
      d.cpumode = (*record)->misc() & PERF_RECORD_MISC_CPUMODE_MASK;
      d.sample = *sample;
      run.samples.push_back(d);
    }
    return run;
  }

  // Decodes `path` with `itrace` and compares every sample with the truth.
  static void ExpectMatchesTruth(const std::string& path, const std::vector<CpuTruth>& truths,
                                 const std::string& itrace, size_t* compared = nullptr) {
    Decode run = DecodeFile(path, itrace);
    ASSERT_TRUE(run.status.ok()) << run.status;
    for (const std::string& w : run.warnings) ADD_FAILURE() << "warning: " << w;
    auto parsed = cs_etm::ParseItrace(itrace);
    ExpectOptions options;
    options.instructions = parsed->instructions;
    options.period = parsed->period;
    options.last_branch = parsed->last_branch;
    options.last_branch_size = parsed->last_branch_size;
    options.branches = parsed->branches;
    size_t total = 0;
    for (const CpuTruth& truth : truths) {
      std::vector<std::string> want, got;
      for (const ExpectedSample& e : ExpectedSamples(truth, options)) want.push_back(Describe(e));
      for (const Decoded& d : run.samples) {
        if (d.sample.cpu == truth.cpu) got.push_back(Describe(d));
      }
      ASSERT_FALSE(want.empty());
      EXPECT_EQ(FirstDifference(got, want), "") << "cpu " << truth.cpu << " itrace " << itrace;
      total += want.size();
    }
    EXPECT_EQ(run.samples.size(), total);
    ExpectNoForeignBranches(run);
    if (compared != nullptr) *compared = total;
  }

  // Independent of the model: every branch-stack entry lies in the code of
  // the sample's own process (or the kernel), so no stack mixes processes.
  static void ExpectNoForeignBranches(const Decode& run) {
    const uint64_t user_size = programs_->user.code.size() * 4 + kTextOffset;
    auto in_own_code = [&](uint32_t pid, uint64_t address) {
      uint64_t base = pid == 100 ? kBaseA : kBaseB;
      return (address >= base && address < base + user_size) ||
             (address >= kKernelBase && address < kKernelBase + 0x2000);
    };
    for (const Decoded& d : run.samples) {
      EXPECT_TRUE(in_own_code(d.sample.pid, d.sample.ip) || d.sample.ip == 0) << Describe(d);
      for (const BranchEntry& e : d.sample.branch_stack.entries) {
        EXPECT_TRUE(in_own_code(d.sample.pid, e.from) && in_own_code(d.sample.pid, e.to))
            << Describe(d);
      }
    }
  }

  static std::string* dir_;
  static DemoPrograms* programs_;
};

std::string* GroundTruth::dir_ = nullptr;
DemoPrograms* GroundTruth::programs_ = nullptr;

// Builds scenario (a): two processes sharing the binary interleaved on one
// CPU, switches in the middle of AUX buffers in both packet styles, plus a
// second thread of the first process.
std::vector<GroundTruth::Buffer> TwoProcessesOneCpu(CpuTracer& tracer, ThreadState& a,
                                                    ThreadState& a2, ThreadState& b) {
  std::vector<GroundTruth::Buffer> buffers;
  tracer.BeginBuffer(1000);
  tracer.Enter(a);
  EXPECT_TRUE(tracer.Run(a, 40).ok());
  tracer.SwitchTo(b);
  EXPECT_TRUE(tracer.Run(b, 45).ok());
  tracer.SwitchTo(a, SwitchStyle::kContextThenAddress);
  EXPECT_TRUE(tracer.Run(a, 30).ok());
  tracer.SwitchTo(a2);
  EXPECT_TRUE(tracer.Run(a2, 33).ok());
  buffers.push_back({0, 1000, tracer.EndBuffer()});
  tracer.BeginBuffer(2000);
  tracer.Enter(b);
  EXPECT_TRUE(tracer.Run(b, 25).ok());
  tracer.SwitchTo(a);
  EXPECT_TRUE(tracer.Run(a, 21).ok());
  buffers.push_back({0, 2000, tracer.EndBuffer()});
  return buffers;
}

TEST_F(GroundTruth, TwoProcessesSwitchingMidBuffer) {
  for (Packing packing : {Packing::kRaw, Packing::kFormatted}) {
    CpuTracer tracer(0, 0);
    ThreadState a = Thread(100, 100, 1), a2 = Thread(100, 101, 2), b = Thread(200, 200, 3);
    std::vector<Buffer> buffers = TwoProcessesOneCpu(tracer, a, a2, b);
    std::string path = Write(packing == Packing::kRaw ? "a_raw.data" : "a_fmt.data",
                             Layout(1, false), buffers, packing, {{0, {100, 100}}});
    SCOPED_TRACE(path);
    for (const char* itrace : {"i7il16b", "il64", "i1il4"}) {
      ExpectMatchesTruth(path, {tracer.truth()}, itrace);
    }
  }
}

}  // namespace
}  // namespace perftk::etm_gen
