// The qemu recorder (qemu_recorder.h) on logs written here, in qemu 7.2's
// line formats, for a static hand-assembled program: the truth it keeps is
// the one worked out by hand below, cs-etm-decode (in process) decodes its
// perf.data to that truth, and logs it cannot vouch for are refused.
#include "qemu_recorder.h"

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "base/warnings.h"
#include "cs_etm/decode_tool.h"
#include "elf_writer.h"
#include "gtest/gtest.h"
#include "pipeline/pipeline.h"
#include "profile/autofdo_text.h"

namespace perftk::etm_gen {
namespace {

constexpr uint64_t kBase = 0x400000;
constexpr uint64_t kStart = kBase + kTextOffset;  // the entry, _start

// _start: add; subs; b.ne _start; bl f; svc #0 (exit); f: nop; ret
class QemuRecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrFormat("perftk-qemu-recorder-%d", getpid());
    std::filesystem::create_directories(dir_);
    Assembler a(kStart);
    a.Label("_start", true)
        .AddImm(1, 1, 1)
        .SubsImm(2, 2, 1)
        .BCond(Cond::kNe, "_start")
        .Bl("f")
        .Svc(0)
        .Nop();
    a.Label("f", true).Nop().Ret();
    absl::StatusOr<std::vector<uint32_t>> code = a.Finish();
    ASSERT_TRUE(code.ok()) << code.status();
    ElfImage image;
    image.shared_object = false;
    image.link_base = kBase;
    image.code = *code;
    image.symbols = a.symbols();
    program_ = (dir_ / "prog").string();
    ASSERT_TRUE(WriteElf(image, program_).ok());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static std::string Trace(uint64_t pc, int cpu = 0, uint64_t host = 0x7f0000001000) {
    return absl::StrFormat("Trace %d: %#x [0000000001009331/%016x/00000001/00000201] ", cpu, host,
                           pc);
  }
  // The pcs of one run: the loop twice (taken, then not), the call, the
  // return, the exit.
  static std::vector<std::string> Run() {
    std::vector<std::string> lines;
    for (uint64_t pc :
         {0x1000, 0x1004, 0x1008, 0x1000, 0x1004, 0x1008, 0x100c, 0x1018, 0x101c, 0x1010}) {
      lines.push_back(Trace(kBase + pc));
    }
    return lines;
  }

  struct Result {
    absl::Status status;
    profile::Profile truth;
    QemuRecorderStats stats;
  };
  Result Record(const std::vector<std::string>& lines, uint32_t cpus = 1) {
    QemuRecorderOptions options;
    options.program = program_;
    options.output = (dir_ / "perf.data").string();
    options.cpus = cpus;
    Result result;
    absl::StatusOr<std::unique_ptr<QemuRecorder>> recorder = QemuRecorder::Create(options);
    if (!recorder.ok()) {
      result.status = recorder.status();
      return result;
    }
    for (const std::string& line : lines) {
      result.status = (*recorder)->Line(line);
      if (!result.status.ok()) return result;
    }
    result.status = (*recorder)->Finish();
    if (result.status.ok()) result.truth = (*recorder)->Truth();
    result.stats = (*recorder)->stats();
    return result;
  }
  std::string Decode() {
    cs_etm::DecodeOptions options;
    options.format = cs_etm::OutputFormat::kAutoFdo;
    perftk::base::WarningList tool_warnings;
    cs_etm::CsEtmDecodeTool tool(options, tool_warnings);
    pipeline::PipelineOptions run_options;
    run_options.input = (dir_ / "perf.data").string();
    perftk::base::WarningList warnings;
    absl::Status status = pipeline::RunPipeline(tool, run_options, warnings).status();
    EXPECT_TRUE(status.ok()) << status;
    for (const std::string& w : tool_warnings.lines()) ADD_FAILURE() << "warning: " << w;
    return tool.text();
  }

  std::filesystem::path dir_;
  std::string program_;
};

TEST_F(QemuRecorderTest, TruthIsTheRunAndTheDecodeIsTheTruth) {
  Result r = Record(Run());
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.truth.binaries().size(), 1u);
  const profile::BinaryCounts& counts = r.truth.binaries().begin()->second;
  // AutoFDO addresses: vaddr minus the first load's (kBase).
  const std::map<profile::AddressPair, uint64_t> ranges = {
      {{0x1000, 0x1008}, 2}, {{0x100c, 0x100c}, 1}, {{0x1010, 0x1010}, 1}, {{0x1018, 0x101c}, 1}};
  EXPECT_EQ(counts.ranges, ranges);
  const std::map<profile::AddressPair, profile::BranchCount> branches = {
      {{0x1008, 0x1000}, {1, 0}},  // the loop's taken b.ne
      {{0x100c, 0x1018}, {1, 0}},  // bl f
      {{0x101c, 0}, {1, 0}},       // ret: indirect, 0 in AutoFDO
  };
  EXPECT_EQ(counts.branches, branches);
  EXPECT_EQ(r.stats.instructions, 10u);
  EXPECT_EQ(r.stats.waypoints, 5u);
  EXPECT_EQ(r.stats.syscalls, 1u);
  EXPECT_EQ(Decode(), profile::AutoFdoText(r.truth));
}

TEST_F(QemuRecorderTest, BoltTruthKeepsIndirectTargets) {
  QemuRecorderOptions options;
  options.program = program_;
  options.output = (dir_ / "perf.data").string();
  absl::StatusOr<std::unique_ptr<QemuRecorder>> recorder = QemuRecorder::Create(options);
  ASSERT_TRUE(recorder.ok()) << recorder.status();
  for (const std::string& line : Run()) ASSERT_TRUE((*recorder)->Line(line).ok());
  ASSERT_TRUE((*recorder)->Finish().ok());
  profile::Profile bolt = (*recorder)->Truth(profile::Format::kBolt);
  ASSERT_EQ(bolt.binaries().size(), 1u);
  const profile::BinaryCounts& counts = bolt.binaries().begin()->second;
  EXPECT_EQ(counts.ranges.count({kBase + 0x1000, kBase + 0x1008}), 1u);
  EXPECT_EQ(counts.branches.count({kBase + 0x101c, kBase + 0x1010}), 1u);  // ret -> after bl
}

TEST_F(QemuRecorderTest, StoppedBlockIsNoExecutionAndGluedLinesAreSplit) {
  std::vector<std::string> lines = Run();
  // A block logged and then stopped (here: the ELF header, no code).
  lines.insert(lines.begin() + 4, {Trace(kBase, 0, 0x7f0000002000),
                                   absl::StrFormat("Stopped execution of TB chain before %#x "
                                                   "[%016x] main",
                                                   0x7f0000002000, kBase)});
  // A syscall line with another Trace line glued to its end, its result
  // on a line of its own.
  lines[2] = "42 brk(NULL)" + lines[2];
  lines.insert(lines.begin() + 3, " = 0x0000000000421000");
  Result r = Record(lines);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.stats.taken_back, 1u);
  EXPECT_EQ(r.stats.instructions, 10u);
  EXPECT_EQ(Decode(), profile::AutoFdoText(r.truth));
  EXPECT_EQ(profile::AutoFdoText(r.truth), profile::AutoFdoText(Record(Run()).truth));
}

TEST_F(QemuRecorderTest, ThreadsRunOnCpusOfTheirOwn) {
  std::vector<std::string> lines = Run();
  // Thread 1 runs f and exits, between the main thread's lines.
  lines.insert(lines.begin() + 7,
               {Trace(kBase + 0x1018, 1), Trace(kBase + 0x101c, 1), Trace(kBase + 0x1010, 1)});
  EXPECT_EQ(Record(lines).status.code(), absl::StatusCode::kResourceExhausted);  // --cpus 1
  Result r = Record(lines, 2);
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.stats.threads, 2u);
  const profile::BinaryCounts& counts = r.truth.binaries().begin()->second;
  EXPECT_EQ(counts.ranges.at({0x1018, 0x101c}), 2u);
  EXPECT_EQ(counts.ranges.at({0x1010, 0x1010}), 2u);
  EXPECT_EQ(Decode(), profile::AutoFdoText(r.truth));
}

TEST_F(QemuRecorderTest, RefusesWhatIsNotOneExactExecution) {
  // An instruction left out: the second b.ne, so 0x100c follows 0x1004.
  std::vector<std::string> dropped = Run();
  dropped.erase(dropped.begin() + 5);
  EXPECT_EQ(Record(dropped).status.code(), absl::StatusCode::kDataLoss);
  // A direct branch to somewhere else than its target.
  std::vector<std::string> wrong = Run();
  wrong[3] = Trace(kBase + 0x1004);
  wrong.erase(wrong.begin() + 4);
  EXPECT_EQ(Record(wrong).status.code(), absl::StatusCode::kDataLoss);
  // Code in no file, and no -strace line that could have mapped it.
  std::vector<std::string> nowhere = Run();
  nowhere[9] = Trace(0x5500000000);  // where the ret goes
  EXPECT_EQ(Record(nowhere).status.code(), absl::StatusCode::kFailedPrecondition);
  // The first pc is not the entry.
  EXPECT_EQ(Record({Trace(kBase + 0x1004)}).status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(Record({}).status.code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace perftk::etm_gen
