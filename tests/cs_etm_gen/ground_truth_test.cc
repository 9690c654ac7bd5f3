// Ground truth for `perftk cs-etm-decode`: recordings generated from
// simulated programs (two processes sharing one binary, threads, syscalls
// into a kernel image, trace gaps, timestamps, raw and formatted trace) are
// decoded by the real tool through RunPipeline, and every sample (pid, tid,
// cpu mode, ip, period, time, each branch-stack entry) must equal what the
// simulator's truth says.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/warnings.h"
#include "cpu_tracer.h"
#include "cs_etm/decode_tool.h"
#include "elf/module_layout.h"
#include "etm_encoder.h"
#include "expected.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "module_writer.h"
#include "perf/reader.h"
#include "perf/sample.h"
#include "pipeline/pipeline.h"
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
  perf::Sample sample;
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
  return Describe(e.branch, e.cpu, e.context.pid, e.context.tid, e.context.el, e.time, e.ip, e.addr,
                  e.period, e.branches);
}

std::string Describe(const Decoded& d) {
  std::vector<std::pair<uint64_t, uint64_t>> stack;
  for (const perf::BranchEntry& e : d.sample.branch_stack.entries) stack.push_back({e.from, e.to});
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
  std::string out =
      absl::StrFormat("sample %d of %d decoded, %d expected\n", i, got.size(), want.size());
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

  static Decode DecodeFile(const std::string& path, const std::string& itrace, int jobs = 1,
                           const cs_etm::DecodeOptions& base = {}) {
    Decode run;
    cs_etm::DecodeOptions options = base;
    options.jobs = jobs;
    options.itrace = *cs_etm::ParseItrace(itrace);
    options.format = cs_etm::OutputFormat::kPerf;
    perftk::base::WarningList tool_warnings;
    cs_etm::CsEtmDecodeTool tool(options, tool_warnings);
    pipeline::PipelineOptions run_options;
    run_options.input = path;
    run_options.output = path + ".decoded";
    perftk::base::WarningList warnings;
    run.status = pipeline::RunPipeline(tool, run_options, warnings).status();
    run.warnings = tool_warnings.lines();
    if (!run.status.ok()) return run;
    auto reader = perf::PerfDataReader::Open(run_options.output);
    if (!reader.ok()) {
      run.status = reader.status();
      return run;
    }
    const perf::Header& header = (*reader)->header();
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
      auto sample = perf::DecodeSample(header.events.format(*index), (*record)->body());
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
                                 const std::string& itrace, int jobs = 1,
                                 const cs_etm::DecodeOptions& base = {}) {
    Decode run = DecodeFile(path, itrace, jobs, base);
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
  }

  // Independent of the model: every branch-stack entry lies in the code of
  // the sample's own process (or the kernel), so no stack mixes processes.
  static void ExpectNoForeignBranches(const Decode& run) {
    const uint64_t user_size = programs_->user.code.size() * 4 + kTextOffset;
    auto in_own_code = [&](uint32_t pid, uint64_t address) {
      uint64_t base = pid == 100 ? kBaseA : kBaseB;
      return (address >= base && address < base + user_size) ||
             // the kernel, moved by KASLR or not, and its modules
             (address >= kKernelBase && address < kKernelBase + 0x8000000);
    };
    for (const Decoded& d : run.samples) {
      EXPECT_TRUE(in_own_code(d.sample.pid, d.sample.ip) || d.sample.ip == 0) << Describe(d);
      for (const perf::BranchEntry& e : d.sample.branch_stack.entries) {
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
    ExpectMatchesTruth(path, {tracer.truth()}, "i7il16", /*jobs=*/2);
  }
}

// Runs `thread` one waypoint at a time until its last executed instruction
// has the flow `wanted` and was taken.
void RunUntil(CpuTracer& tracer, ThreadState& thread, Flow wanted) {
  for (int i = 0; i < 500; ++i) {
    ASSERT_TRUE(tracer.Run(thread, 1).ok());
    const TruthEvent& last = tracer.truth().events.back();
    const LoadedCode& code = last.context.el == 0 ? thread.user : thread.kernel;
    if (last.taken && Classify(code.WordAt(last.end - 4)).flow == wanted) return;
  }
  FAIL() << "no taken branch of the wanted kind";
}

// (b) The switch comes right after a taken branch: the branch belongs to the
// old thread, the first range after the context to the new one. Threads 100
// and 101 share the process, so only the exact comparison can tell them apart.
TEST_F(GroundTruth, SwitchRightAfterTakenBranch) {
  for (Flow flow : {Flow::kCondBranch, Flow::kCall, Flow::kReturn}) {
    CpuTracer tracer(0, 0);
    ThreadState a = Thread(100, 100, 11), a2 = Thread(100, 101, 12), b = Thread(200, 200, 13);
    tracer.BeginBuffer(500);
    tracer.Enter(a);
    RunUntil(tracer, a, flow);
    tracer.SwitchTo(a2);
    RunUntil(tracer, a2, flow);
    tracer.SwitchTo(b, SwitchStyle::kContextThenAddress);
    RunUntil(tracer, b, flow);
    tracer.SwitchTo(a);
    ASSERT_TRUE(tracer.Run(a, 12).ok());
    std::vector<Buffer> buffers = {{0, 500, tracer.EndBuffer()}};
    std::string path = Write(absl::StrCat("b", static_cast<int>(flow), ".data"), Layout(1, false),
                             buffers, Packing::kFormatted, {{0, {100, 100}}});
    SCOPED_TRACE(path);
    for (const char* itrace : {"i1il64b", "i3il8", "il64"}) {
      ExpectMatchesTruth(path, {tracer.truth()}, itrace);
    }
    // The sample flushed at each switch is the old thread's, at its branch.
    Decode run = DecodeFile(path, "il64");
    ASSERT_TRUE(run.status.ok()) << run.status;
    ASSERT_EQ(run.samples.size(), 4u);
    EXPECT_EQ(run.samples[0].sample.tid, 100u);
    EXPECT_EQ(run.samples[1].sample.tid, 101u);
    EXPECT_EQ(run.samples[2].sample.tid, 200u);
    EXPECT_EQ(run.samples[3].sample.tid, 100u);
  }
}

// (c) Syscalls: SVC takes an exception into the kernel image (EL1, mapped by
// a kernel MMAP2), ERET returns to EL0. Samples there are kernel samples of
// the same thread, and the exception is a branch in the stack.
TEST_F(GroundTruth, SyscallsChangeTheExceptionLevel) {
  CpuTracer tracer(0, 0);
  ThreadState a = Thread(100, 100, 21, 500), b = Thread(200, 200, 22, 500);
  tracer.BeginBuffer(700);
  tracer.Enter(a);
  ASSERT_TRUE(tracer.Run(a, 120).ok());
  tracer.SwitchTo(b);
  ASSERT_TRUE(tracer.Run(b, 120).ok());
  std::vector<Buffer> buffers = {{0, 700, tracer.EndBuffer()}};
  int kernel_ranges = 0;
  for (const TruthEvent& e : tracer.truth().events) {
    kernel_ranges += e.kind == TruthEvent::Kind::kRange && e.context.el == 1;
  }
  ASSERT_GT(kernel_ranges, 10);
  for (Packing packing : {Packing::kRaw, Packing::kFormatted}) {
    std::string path = Write(packing == Packing::kRaw ? "c_raw.data" : "c_fmt.data",
                             Layout(1, false), buffers, packing, {{0, {100, 100}}});
    SCOPED_TRACE(path);
    for (const char* itrace : {"i2il32b", "i5il64"})
      ExpectMatchesTruth(path, {tracer.truth()}, itrace);
    Decode run = DecodeFile(path, "i2il32");
    ASSERT_TRUE(run.status.ok()) << run.status;
    int kernel = 0;
    for (const Decoded& d : run.samples) {
      if (d.cpumode != PERF_RECORD_MISC_KERNEL) continue;
      ++kernel;
      EXPECT_GE(d.sample.ip, kKernelBase);
    }
    EXPECT_GT(kernel, 5);
  }
}

// (c'') Kernel AutoFDO: a kernel moved by KASLR (perf's
// "[kernel.kallsyms]_text" map, pgoff = runtime _text) read from --vmlinux,
// calling into an ET_REL module with an 8-byte build id (recorded
// zero-padded) whose .text the kernel put at another offset than the
// file's. Every sample equals the truth only if both images are read where
// the code ran; the autofdo text gives the module's ranges from its .text.
TEST_F(GroundTruth, KernelCallsAModuleAndBack) {
  constexpr uint64_t kSlide = 0x3a00000;
  constexpr uint64_t kModuleBase = kKernelBase + 0x4000000;
  const std::string kModulePath = "/vendor/lib/modules/etm_mod.ko";
  ModuleImage module;
  module.build_id = std::string("\xa5\x35\xd7\x22\x2f\x9f\x01\xd1", 8);
  module.source_name = "etm_mod.s";
  Assembler m(0);
  m.Label("mod_entry", true)
      .AddImm(11, 11, 1)
      .Label("mod_loop")
      .SubsImm(12, 12, 1)
      .BCond(Cond::kNe, "mod_loop")
      .Bl("mod_helper")
      .Ret();
  m.Label("mod_helper", true).Nop().Ret();
  absl::StatusOr<std::vector<uint32_t>> module_code = m.Finish();
  ASSERT_TRUE(module_code.ok()) << module_code.status();
  module.text = *module_code;
  module.symbols = m.symbols();
  const std::string module_file = *dir_ + "/etm_mod.ko";
  ASSERT_TRUE(WriteModule(module, module_file).ok());
  ASSERT_EQ(module.calls_relocated, 1u);  // bl mod_helper is `bl .` in the file
  {
    absl::StatusOr<std::unique_ptr<elf::ElfFile>> ko = elf::ElfFile::Open(module_file);
    ASSERT_TRUE(ko.ok()) << ko.status();
    absl::StatusOr<elf::ModuleLayout> placed = elf::ModuleLayout::Of(**ko);
    ASSERT_TRUE(placed.ok()) << placed.status();
    EXPECT_EQ(placed->relocated(), 1u);
    EXPECT_EQ(placed->text_start(), ModuleTextOffset(module));
  }
  const uint64_t module_text = kModuleBase + ModuleTextOffset(module);

  // The kernel: the SVC handler calls the module (a BL: modules sit within
  // 128 MB of the kernel on arm64), loops, returns to EL0.
  Assembler k(kKernelBase + kTextOffset);
  k.Label("el0_svc", true)
      .Nop()
      .AddImm(9, 9, 1)
      .Label("call_module")
      .Nop()
      .Label("k_loop")
      .SubsImm(10, 10, 1)
      .BCond(Cond::kNe, "k_loop")
      .Eret();
  absl::StatusOr<std::vector<uint32_t>> kernel_code = k.Finish();
  ASSERT_TRUE(kernel_code.ok()) << kernel_code.status();
  const uint64_t call_link = k.AddressOf("call_module");
  const int64_t delta = static_cast<int64_t>(module_text - (call_link + kSlide));
  (*kernel_code)[(call_link - kKernelBase - kTextOffset) / 4] =
      0x94000000u | (static_cast<uint32_t>(delta / 4) & 0x3ffffffu);  // BL mod_entry
  ElfImage vmlinux;
  vmlinux.shared_object = false;
  vmlinux.link_base = kKernelBase;
  vmlinux.code = *kernel_code;
  vmlinux.symbols = k.symbols();
  vmlinux.symbols.push_back({"_text", kKernelBase + kTextOffset, 0});
  const std::string vmlinux_file = *dir_ + "/vmlinux";
  ASSERT_TRUE(WriteElf(vmlinux, vmlinux_file).ok());

  auto thread = [&](int32_t pid, uint64_t seed) {
    ThreadState t = Thread(pid, pid, seed, 600);
    t.kernel = LoadedCode{kKernelBase + kSlide, kTextOffset, &vmlinux.code};
    t.kernel_vector = k.AddressOf("el0_svc") + kSlide;
    t.module = LoadedCode{kModuleBase, ModuleTextOffset(module), &module.text};
    return t;
  };
  CpuTracer tracer(0, 0);
  ThreadState a = thread(100, 31), b = thread(200, 32);
  tracer.BeginBuffer(700);
  tracer.Enter(a);
  ASSERT_TRUE(tracer.Run(a, 150).ok());
  tracer.SwitchTo(b);
  ASSERT_TRUE(tracer.Run(b, 150).ok());
  std::vector<Buffer> buffers = {{0, 700, tracer.EndBuffer()}};
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> module_ranges;  // from .text
  for (const TruthEvent& e : tracer.truth().events) {
    if (e.kind != TruthEvent::Kind::kRange || e.start < kModuleBase ||
        e.start >= kModuleBase + 0x10000) {
      continue;
    }
    EXPECT_EQ(e.context.el, 1);
    ++module_ranges[{e.start - module_text, e.end - 4 - module_text}];
  }
  ASSERT_GT(module_ranges.size(), 3u);

  RecordingLayout layout = Layout(1, false);
  layout.kernel_image.clear();
  layout.kernel_mmap_name = "[kernel.kallsyms]_text";
  layout.kernel_base = kKernelBase + kSlide + kTextOffset;
  layout.kernel_pgoff = kKernelBase + kSlide + kTextOffset;
  layout.kernel_size = 0x100000;
  layout.modules = {{kModulePath, kModuleBase, 0x2000, module.build_id}};
  cs_etm::DecodeOptions options;
  options.vmlinux = vmlinux_file;
  options.symfs = *dir_;  // finds etm_mod.ko by its file name
  for (Packing packing : {Packing::kRaw, Packing::kFormatted}) {
    std::string path = Write(packing == Packing::kRaw ? "km_raw.data" : "km_fmt.data", layout,
                             buffers, packing, {{0, {100, 100}}});
    SCOPED_TRACE(path);
    for (const char* itrace : {"i2il32b", "i7il64"}) {
      ExpectMatchesTruth(path, {tracer.truth()}, itrace, 1, options);
    }
  }
  // The same from a kcore (perf record --kcore, or /proc/kcore on the
  // recorded machine): the kernel's and the module's memory at their runtime
  // addresses, no vmlinux and no .ko.
  {
    std::vector<uint8_t> kernel_bytes = BuildElf(vmlinux);
    std::vector<uint8_t> module_bytes(ModuleTextOffset(module), 0);
    for (uint32_t word : module.text) {
      for (int i = 0; i < 4; ++i) module_bytes.push_back(static_cast<uint8_t>(word >> (8 * i)));
    }
    const std::string kcore = *dir_ + "/kcore";
    ASSERT_TRUE(
        WriteKcore({{kKernelBase + kSlide, kernel_bytes}, {kModuleBase, module_bytes}}, kcore)
            .ok());
    cs_etm::DecodeOptions from_kcore;
    from_kcore.kcore = kcore;
    ExpectMatchesTruth(*dir_ + "/km_fmt.data", {tracer.truth()}, "i2il32b", 1, from_kcore);
  }
  // The same with the vmlinux found by the recorded kernel build id in a
  // build-id cache (perf's layout: .build-id/xx/yyyy/elf), no --vmlinux.
  {
    ElfImage with_id = vmlinux;
    with_id.build_id = std::string(
        "\x31\x4a\x4f\x09\xe2\xd2\x30\x5e\x11\x22\x33\x44\x55"
        "\x66\x77\x88\x99\xaa\xbb\xcc",
        20);
    const std::string cache = *dir_ + "/buildid-cache";
    const std::string entry = cache + "/.build-id/31/4a4f09e2d2305e112233445566778899aabbcc";
    std::filesystem::create_directories(entry);
    ASSERT_TRUE(WriteElf(with_id, entry + "/elf").ok());
    RecordingLayout by_id = layout;
    by_id.kernel_build_id = with_id.build_id;
    std::string path =
        Write("km_buildid.data", by_id, buffers, Packing::kFormatted, {{0, {100, 100}}});
    setenv("PERF_BUILDID_DIR", cache.c_str(), 1);
    cs_etm::DecodeOptions found = options;
    found.vmlinux.clear();
    ExpectMatchesTruth(path, {tracer.truth()}, "i2il32b", 1, found);
    // Another kernel's id finds nothing: a warning, not a wrong image.
    by_id.kernel_build_id[0] = '\x32';
    path = Write("km_otherid.data", by_id, buffers, Packing::kFormatted, {{0, {100, 100}}});
    Decode run = DecodeFile(path, "i2il32", 1, found);
    unsetenv("PERF_BUILDID_DIR");
    ASSERT_TRUE(run.status.ok()) << run.status;
    EXPECT_THAT(run.warnings, ::testing::Contains(::testing::HasSubstr(
                                  "no kernel image for [kernel.kallsyms] (build id 324a4f09")));
  }
  // The autofdo text of the module: its ranges from .text, its short id.
  std::string path = *dir_ + "/km_fmt.data";
  cs_etm::DecodeOptions autofdo = options;
  autofdo.format = cs_etm::OutputFormat::kAutoFdo;
  autofdo.dso = "etm_mod.ko";
  perftk::base::WarningList tool_warnings;
  cs_etm::CsEtmDecodeTool tool(autofdo, tool_warnings);
  pipeline::PipelineOptions run_options;
  run_options.input = path;
  perftk::base::WarningList warnings;
  ASSERT_TRUE(pipeline::RunPipeline(tool, run_options, warnings).ok());
  for (const std::string& w : tool_warnings.lines()) ADD_FAILURE() << "warning: " << w;
  std::string want = absl::StrCat(module_ranges.size(), "\n");
  for (const auto& [range, count] : module_ranges) {
    absl::StrAppendFormat(&want, "%x-%x:%d\n", range.first, range.second, count);
  }
  EXPECT_THAT(tool.text(), ::testing::StartsWith(want));
  EXPECT_THAT(tool.text(),
              ::testing::HasSubstr("// build_id: 0xa535d7222f9f01d1000000000000000000000000\n"
                                   "// /vendor/lib/modules/etm_mod.ko\n"));
  // The call from mod_entry into mod_helper is in it.
  const uint64_t helper = m.AddressOf("mod_helper");
  uint64_t calls = 0;
  for (const TruthEvent& e : tracer.truth().events) {
    calls += e.kind == TruthEvent::Kind::kRange && e.end - 4 == module_text + helper - 8;
  }
  ASSERT_GT(calls, 0u);
  EXPECT_THAT(tool.text(),
              ::testing::HasSubstr(absl::StrFormat("%x->%x:%d\n", helper - 8, helper, calls)));

  // The kernel's text: vmlinux link addresses (runtime minus the KASLR
  // slide) from its first load, as simpleperf writes the kernel.
  {
    std::map<std::pair<uint64_t, uint64_t>, uint64_t> kernel_ranges;
    for (const TruthEvent& e : tracer.truth().events) {
      if (e.kind != TruthEvent::Kind::kRange || e.start < kKernelBase + kSlide ||
          e.start >= kModuleBase) {
        continue;
      }
      ++kernel_ranges[{e.start - kSlide - kKernelBase, e.end - 4 - kSlide - kKernelBase}];
    }
    ASSERT_FALSE(kernel_ranges.empty());
    cs_etm::DecodeOptions kernel_text = autofdo;
    kernel_text.dso = "[kernel.kallsyms]";
    perftk::base::WarningList kernel_tool_warnings;
    cs_etm::CsEtmDecodeTool kernel_tool(kernel_text, kernel_tool_warnings);
    perftk::base::WarningList warnings;
    ASSERT_TRUE(pipeline::RunPipeline(kernel_tool, run_options, warnings).ok());
    std::string kernel_want = absl::StrCat(kernel_ranges.size(), "\n");
    for (const auto& [range, count] : kernel_ranges) {
      absl::StrAppendFormat(&kernel_want, "%x-%x:%d\n", range.first, range.second, count);
    }
    EXPECT_THAT(kernel_tool.text(), ::testing::StartsWith(kernel_want));
  }

  // create_llvm_prof (AutoFDO 0.19) reads the module's text against the
  // .ko itself (DWARF at .text's section addresses, from 0) and gives each
  // function what AutoFDO's aggregation of the truth gives (autofdo_model.h:
  // a range adds count * (last - start + 1) to the function of its start; a
  // branch to a function's start adds to its head).
  if (system("command -v create_llvm_prof >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "no create_llvm_prof (Debian: autofdo): its check is skipped";
  }
  std::string afdo = *dir_ + "/etm_mod.afdo", prof = *dir_ + "/etm_mod.prof";
  {
    std::ofstream out(afdo);
    out << tool.text();
  }
  ASSERT_EQ(system(absl::StrCat("create_llvm_prof --profiler=text --binary=", module_file,
                                " --profile=", afdo, " --format=text --out=", prof, " 2>/dev/null")
                       .c_str()),
            0);
  std::map<std::string, std::pair<uint64_t, uint64_t>> counts;  // total, head
  for (const auto& [range, count] : module_ranges) {
    const std::string function = range.first >= helper ? "mod_helper" : "mod_entry";
    counts[function].first += count * (range.second - range.first + 1);
  }
  counts["mod_helper"].second = calls;
  // A quirk of the format (simpleperf's too): an indirect branch's target is
  // written as 0, which in a module is .text's first byte, mod_entry; so
  // AutoFDO counts every return of the module as an entry into mod_entry.
  for (const auto& [range, count] : module_ranges) {
    if (Classify(module.text[range.second / 4]).flow == Flow::kReturn) {
      counts["mod_entry"].second += count;
    }
  }
  std::map<std::string, std::pair<uint64_t, uint64_t>> got;
  std::ifstream in(prof);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields = absl::StrSplit(line, ':');
    if (line.empty() || line[0] == ' ' || fields.size() != 3) continue;
    got[fields[0]] = {std::stoull(fields[1]), std::stoull(fields[2])};
  }
  EXPECT_EQ(got, counts);
}

// Without a kernel image, kernel trace is skipped with a warning that names
// the flags that would fix it.
TEST_F(GroundTruth, KernelTraceWithoutAnImageWarns) {
  CpuTracer tracer(0, 0);
  ThreadState a = Thread(100, 100, 41, 800);
  tracer.BeginBuffer(700);
  tracer.Enter(a);
  ASSERT_TRUE(tracer.Run(a, 80).ok());
  std::vector<Buffer> buffers = {{0, 700, tracer.EndBuffer()}};
  RecordingLayout layout = Layout(1, false);
  layout.kernel_image.clear();
  layout.kernel_mmap_name = "[kernel.kallsyms]_text";
  layout.kernel_pgoff = layout.kernel_base + kTextOffset;
  std::string path =
      Write("nokernel.data", layout, buffers, Packing::kFormatted, {{0, {100, 100}}});
  cs_etm::DecodeOptions options;
  options.vmlinux = *dir_ + "/no-such-vmlinux";
  Decode run = DecodeFile(path, "i2il32", 1, options);
  ASSERT_TRUE(run.status.ok()) << run.status;
  EXPECT_THAT(run.warnings,
              ::testing::Contains(::testing::AllOf(::testing::HasSubstr("kernel trace is skipped"),
                                                   ::testing::HasSubstr("--vmlinux"),
                                                   ::testing::HasSubstr("--kcore"))));
}

// (c') Switches inside the kernel, as a real scheduler does them: thread A
// enters the kernel by SVC and is switched out there; B runs, enters the
// kernel and is switched out; A resumes at EL1 and returns to EL0 by ERET.
TEST_F(GroundTruth, SwitchesInsideTheKernel) {
  CpuTracer tracer(0, 2);
  ThreadState a = Thread(100, 100, 61, 500), b = Thread(200, 200, 62, 500);
  tracer.BeginBuffer(800);
  tracer.Enter(a);
  RunUntil(tracer, a, Flow::kSyscall);
  ASSERT_TRUE(tracer.Run(a, 1).ok());  // a few instructions into the handler
  ASSERT_EQ(a.el, 1);
  tracer.SwitchTo(b);
  RunUntil(tracer, b, Flow::kSyscall);
  ASSERT_EQ(b.el, 1);
  tracer.SwitchTo(a, SwitchStyle::kContextThenAddress);
  RunUntil(tracer, a, Flow::kExceptionReturn);
  ASSERT_TRUE(tracer.Run(a, 25).ok());
  tracer.SwitchTo(b);
  ASSERT_TRUE(tracer.Run(b, 25).ok());
  std::vector<Buffer> buffers = {{0, 800, tracer.EndBuffer()}};
  std::string path = Write("c_kernel_switch.data", Layout(1, true), buffers, Packing::kFormatted,
                           {{0, {100, 100}}});
  for (const char* itrace : {"i1il64b", "i3il8", "il64"}) {
    ExpectMatchesTruth(path, {tracer.truth()}, itrace);
  }
}

// (d) Trace off and on again: no branch-stack entry spans the gap.
TEST_F(GroundTruth, TraceGapIsADiscontinuity) {
  CpuTracer tracer(0, 0);
  ThreadState a = Thread(100, 100, 31, 200), b = Thread(200, 200, 32);
  tracer.BeginBuffer(900);
  tracer.Enter(a);
  ASSERT_TRUE(tracer.Run(a, 30).ok());
  ASSERT_TRUE(tracer.TraceGap(a, 7).ok());
  ASSERT_TRUE(tracer.Run(a, 30).ok());
  tracer.SwitchTo(b);
  ASSERT_TRUE(tracer.TraceGap(b, 3).ok());
  ASSERT_TRUE(tracer.Run(b, 30).ok());
  std::vector<Buffer> buffers = {{0, 900, tracer.EndBuffer()}};
  std::string path = Write("d.data", Layout(1, false), buffers, Packing::kRaw, {{0, {100, 100}}});
  for (const char* itrace : {"i4il64b", "il64"}) ExpectMatchesTruth(path, {tracer.truth()}, itrace);
}

// (e) Timestamps in the stream change nothing in the samples (with and
// without them the same truth gives the same expectations).
TEST_F(GroundTruth, TimestampsPresentAndAbsent) {
  for (uint32_t every : {0u, 1u, 4u}) {
    CpuTracer tracer(0, every);
    ThreadState a = Thread(100, 100, 1), a2 = Thread(100, 101, 2), b = Thread(200, 200, 3);
    std::vector<Buffer> buffers = TwoProcessesOneCpu(tracer, a, a2, b);
    std::string path = Write(absl::StrCat("e", every, ".data"), Layout(1, every != 0), buffers,
                             Packing::kFormatted, {{0, {100, 100}}});
    SCOPED_TRACE(path);
    ExpectMatchesTruth(path, {tracer.truth()}, "i7il16b");
  }
}

// Four CPUs with their own buffers, raw and formatted, threads moving
// between CPUs; and two CPUs' trace multiplexed in one formatted buffer.
TEST_F(GroundTruth, FourCpus) {
  for (Packing packing : {Packing::kRaw, Packing::kFormatted}) {
    std::vector<CpuTracer> tracers;
    for (uint32_t cpu = 0; cpu < 4; ++cpu) tracers.emplace_back(cpu, cpu % 2 ? 5 : 0);
    std::vector<ThreadState> threads = {Thread(100, 100, 41, 100), Thread(100, 101, 42),
                                        Thread(200, 200, 43, 300), Thread(200, 100, 44)};
    threads[3].pid = 200;
    threads[3].tid = 201;
    std::vector<Buffer> buffers;
    uint64_t time = 1000;
    for (int round = 0; round < 3; ++round) {
      for (uint32_t cpu = 0; cpu < 4; ++cpu) {
        CpuTracer& tracer = tracers[cpu];
        ThreadState& first = threads[(cpu + round) % 4];
        ThreadState& second = threads[(cpu + round + 2) % 4];
        tracer.BeginBuffer(time);
        tracer.Enter(first);
        ASSERT_TRUE(tracer.Run(first, 20 + cpu).ok());
        buffers.push_back({cpu, time, tracer.EndBuffer()});
        ++time;
        tracer.BeginBuffer(time);
        tracer.Enter(second);
        ASSERT_TRUE(tracer.Run(second, 15).ok());
        tracer.SwitchTo(first);
        ASSERT_TRUE(tracer.Run(first, 9).ok());
        buffers.push_back({cpu, time, tracer.EndBuffer()});
        ++time;
      }
    }
    RecordingLayout layout = Layout(4, true);
    layout.processes[1].tids.push_back(201);
    std::string path =
        Write(packing == Packing::kRaw ? "f_raw.data" : "f_fmt.data", layout, buffers, packing,
              {{0, {100, 100}}, {1, {100, 101}}, {2, {200, 200}}, {3, {200, 201}}});
    std::vector<CpuTruth> truths;
    for (CpuTracer& tracer : tracers) truths.push_back(tracer.truth());
    // Decoding on several threads (--jobs) gives the same samples.
    for (int jobs : {1, 3}) ExpectMatchesTruth(path, truths, "i3il64b", jobs);
  }
}

// The streams of several CPUs interleaved in chunks of uneven sizes, as a
// shared sink writes them, in CoreSight frames.
std::vector<uint8_t> SharedSinkFrames(
    const std::vector<std::pair<uint32_t, std::vector<uint8_t>>>& streams) {
  FrameFormatter formatter;
  std::vector<size_t> done(streams.size(), 0);
  size_t chunk = 1;
  for (bool more = true; more;) {
    more = false;
    for (size_t i = 0; i < streams.size(); ++i) {
      const std::vector<uint8_t>& bytes = streams[i].second;
      size_t n = std::min(chunk + 2 * i, bytes.size() - done[i]);
      formatter.Add(TraceIdOfCpu(streams[i].first),
                    std::vector<uint8_t>(bytes.begin() + done[i], bytes.begin() + done[i] + n));
      done[i] += n;
      more = more || done[i] < bytes.size();
    }
    chunk = chunk % 9 + 1;
  }
  return formatter.Finish();
}

TEST_F(GroundTruth, TwoCpusInOneFormattedBuffer) {
  CpuTracer cpu0(0, 0), cpu1(1, 3);
  ThreadState a = Thread(100, 100, 51), b = Thread(200, 200, 52, 300);
  cpu0.BeginBuffer(3000);
  cpu1.BeginBuffer(3000);
  cpu0.Enter(a);
  cpu1.Enter(b);
  ASSERT_TRUE(cpu0.Run(a, 60).ok());
  ASSERT_TRUE(cpu1.Run(b, 70).ok());
  std::vector<uint8_t> frames = SharedSinkFrames({{0, cpu0.EndBuffer()}, {1, cpu1.EndBuffer()}});
  std::string path = *dir_ + "/shared_sink.data";
  {
    auto writer = RecordingWriter::Create(path, Layout(2, true));
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE((*writer)->StartCpu(0, 100, 100, 10).ok());
    ASSERT_TRUE((*writer)->AddBuffer(0, 3000, frames, /*raw=*/false).ok());
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  ExpectMatchesTruth(path, {cpu0.truth(), cpu1.truth()}, "i2il16b");
}

// Formatted buffers that hold one CPU's trace decode on that CPU's lane,
// those of a shared sink after the blocks of each CPU they hold: rounds of
// own and shared buffers in turn still give every CPU's flow in order,
// whatever the number of threads. Without l, instructions counted toward
// the next sample carry from one block of a CPU to the next.
TEST_F(GroundTruth, OwnAndSharedFormattedBuffersInTurn) {
  std::vector<CpuTracer> tracers;
  for (uint32_t cpu = 0; cpu < 3; ++cpu) tracers.emplace_back(cpu, cpu == 1 ? 4 : 0);
  std::vector<ThreadState> threads = {Thread(100, 100, 61), Thread(100, 101, 62, 200),
                                      Thread(200, 200, 63)};
  // Per round, which CPUs share one buffer (written as the first one's);
  // the others have their own.
  const std::vector<std::vector<uint32_t>> shared = {{0, 1}, {}, {1, 2}, {0, 1, 2}, {}, {2, 0}};
  std::string path = *dir_ + "/own_and_shared.data";
  {
    RecordingLayout layout = Layout(3, true);
    auto writer = RecordingWriter::Create(path, layout);
    ASSERT_TRUE(writer.ok()) << writer.status();
    for (uint32_t cpu = 0; cpu < 3; ++cpu) {
      ASSERT_TRUE((*writer)->StartCpu(cpu, threads[cpu].pid, threads[cpu].tid, 10).ok());
    }
    uint64_t time = 1000;
    for (size_t round = 0; round < shared.size(); ++round, time += 10) {
      std::vector<std::pair<uint32_t, std::vector<uint8_t>>> streams;
      for (uint32_t cpu = 0; cpu < 3; ++cpu) {
        CpuTracer& tracer = tracers[cpu];
        tracer.BeginBuffer(time);
        tracer.Enter(threads[cpu]);
        ASSERT_TRUE(tracer.Run(threads[cpu], 25 + 3 * cpu + round).ok());
        streams.push_back({cpu, tracer.EndBuffer()});
      }
      std::vector<std::pair<uint32_t, std::vector<uint8_t>>> together;
      for (uint32_t cpu : shared[round]) together.push_back(streams[cpu]);
      if (!together.empty()) {
        ASSERT_TRUE((*writer)
                        ->AddBuffer(together.front().first, time, SharedSinkFrames(together),
                                    /*raw=*/false)
                        .ok());
      }
      for (auto& [cpu, bytes] : streams) {
        if (absl::c_linear_search(shared[round], cpu)) continue;
        ASSERT_TRUE(
            (*writer)->AddBuffer(cpu, time, SharedSinkFrames({{cpu, bytes}}), /*raw=*/false).ok());
      }
    }
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  std::vector<CpuTruth> truths;
  for (CpuTracer& tracer : tracers) truths.push_back(tracer.truth());
  for (int jobs : {1, 2, 3}) {
    SCOPED_TRACE(absl::StrCat("jobs ", jobs));
    ExpectMatchesTruth(path, truths, "i3il8b", jobs);
    ExpectMatchesTruth(path, truths, "i5il64", jobs);
    ExpectMatchesTruth(path, truths, "i7", jobs);
  }
}

// The truth itself checked against hand-computed counts: a loop whose
// B.NE is taken 9 times out of 10, then B back to the start. 30 waypoints
// are 2 rounds of 11 and 8 more taken B.NE, the last of which ends the trace
// (its target is never traced): the back edge is seen 9 + 9 + 7 = 25 times
// and B twice. The decoded branch samples must say so.
TEST_F(GroundTruth, TinyLoopEdgeCountsByHand) {
  Assembler code(kTextOffset);
  code.Label("start", true)
      .AddImm(0, 0, 9)
      .Label("top")
      .SubsImm(0, 0, 1)
      .BCond(Cond::kNe, "top")
      .B("start");
  auto words = code.Finish();
  ASSERT_TRUE(words.ok());
  ElfImage image;
  image.code = *words;
  image.symbols = code.symbols();
  const std::string binary = *dir_ + "/tiny_loop";
  ASSERT_TRUE(WriteElf(image, binary).ok());

  ThreadState t;
  t.pid = t.tid = 300;
  t.user = LoadedCode{kBaseA, kTextOffset, &image.code};
  t.pc = kBaseA + kTextOffset;
  auto count = std::make_shared<int>(0);
  t.decide = [count](uint64_t) { return (*count)++ % 10 != 9; };
  CpuTracer tracer(0, 0);
  tracer.BeginBuffer(100);
  tracer.Enter(t);
  ASSERT_TRUE(tracer.Run(t, 30).ok());
  std::vector<uint8_t> trace = tracer.EndBuffer();

  const uint64_t top = kBaseA + kTextOffset + 4, bne = top + 4, b = bne + 4;
  std::map<std::pair<uint64_t, uint64_t>, int> truth_edges;
  const TruthEvent* prev = nullptr;
  for (const TruthEvent& e : tracer.truth().events) {
    if (e.kind != TruthEvent::Kind::kRange) continue;
    if (prev != nullptr && prev->taken) ++truth_edges[{prev->end - 4, e.start}];
    prev = &e;
  }
  const std::map<std::pair<uint64_t, uint64_t>, int> by_hand = {{{bne, top}, 25},
                                                                {{b, kBaseA + kTextOffset}, 2}};
  EXPECT_EQ(truth_edges, by_hand);

  RecordingLayout layout = Layout(1, false);
  layout.user_binary = binary;
  layout.user_size = std::filesystem::file_size(binary);
  layout.processes = {{300, {300}, "tiny_loop", kBaseA}};
  std::string path = *dir_ + "/tiny.data";
  {
    auto writer = RecordingWriter::Create(path, layout);
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE((*writer)->AddBuffer(0, 100, trace, /*raw=*/true).ok());
    ASSERT_TRUE((*writer)->Finish().ok());
  }
  Decode run = DecodeFile(path, "b");
  ASSERT_TRUE(run.status.ok()) << run.status;
  std::map<std::pair<uint64_t, uint64_t>, int> decoded;
  for (const Decoded& d : run.samples) {
    if (d.sample.ip != 0 && d.sample.addr != 0) ++decoded[{d.sample.ip, d.sample.addr}];
  }
  EXPECT_EQ(decoded, by_hand);
  // The 27 edges, plus trace start (0 -> start) and trace end (B.NE -> 0).
  EXPECT_EQ(run.samples.size(), 27u + 2u);
}

}  // namespace
}  // namespace perftk::etm_gen
