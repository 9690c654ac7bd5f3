// Drives UnwindTool through its Tool interface on a recording made in memory
// from this test's own process: the file mappings of /proc/self/maps as
// MMAP2 records, a COMM, and samples captured as perf --call-graph dwarf
// captures them (the registers at one instant and a copy of the stack from
// the stack pointer up) at a few call depths, with records that change the
// machine model in the middle so the windows are drained mid-run. Checks
// that the output is the same bytes whatever the jobs and take_over_frames,
// that samples keep their order and times, that a call chain is the sample's
// own stack (as ProcessUnwinder unwinds it, and through the return addresses
// of the capturing functions), that the stack copies leave the attr and the
// samples unless keep_stack, and what the stats count.
#include "unwind/unwind_tool.h"

#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "../testing/collecting_sink.h"
#include "gtest/gtest.h"
#include "perf/sample.h"
#include "pipeline/tool_feed.h"
#include "self_maps.h"
#include "unwind/module_files.h"
#include "unwind/process_unwinder.h"
#include "unwind/registers.h"

namespace perftk::unwind {
namespace {

#if defined(__x86_64__)

// The stack copy size asked for (sample_stack_user; the registers are
// kPerfRegsMask's).
// (The test thread uses about 7 KiB of its stack in a release build.)
constexpr uint32_t kStackCopySize = 16 * 1024;
constexpr uint64_t kSampleType = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                 PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD |
                                 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
constexpr uint64_t kStackFields = PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
// kSamples in all: the model changes among the first kChangingSamples,
// then the windows fill and wait, several at a time, for the lanes.
constexpr size_t kSamples = 1300;
constexpr size_t kChangingSamples = 300;
constexpr int kDepths = 4;  // samples are captured 0..3 calls below Descend's first
// Where the model changes mid-run (counted in samples before it): a COMM,
// another real file mapped where nothing was, and the samples from
// kHiddenFrom to kHiddenTo with this test's code mapped from a file that
// does not exist (they must not be unwound, and no other may be).
constexpr size_t kCommAt = 150;
constexpr size_t kOtherFileAt = 100;
constexpr size_t kHiddenFrom = 200;
constexpr size_t kHiddenTo = 210;
constexpr char kMissingFile[] = "/nonexistent/unwind_tool_test";
constexpr size_t kRoundEvery = 50;  // a FINISHED_ROUND, kept in its window
constexpr uint64_t kFirstTime = 1'000'000;
constexpr uint64_t kKernelFrame = 0xffffffff81001234;
constexpr size_t kKernelPartEvery = 7;  // every 7th sample has a kernel call chain part
// A run ends when its threads have taken part. On a loaded machine (ctest
// -j2 beside a sanitizer build) the caller can unwind every sample before a
// thread is scheduled, run after run: 5 tries were once not enough.
constexpr int kRunsForThreadsToTakePart = 50;

// A sample as the kernel writes it: the registers, the stack copy, and the
// return addresses of the functions that captured it (innermost first).
struct Capture {
  perf::RegisterDump regs;
  std::vector<std::byte> stack;  // kStackCopySize bytes, `valid` of them copied
  uint64_t valid = 0;
  std::vector<uint64_t> return_addresses;
};

// Raw stack memory, redzones included, as the kernel copies it.
__attribute__((no_sanitize("address", "thread"))) void CopyRawStack(uint64_t sp, std::byte* out,
                                                                    size_t size) {
  const volatile std::byte* from = reinterpret_cast<const volatile std::byte*>(sp);
  for (size_t i = 0; i < size; ++i) out[i] = from[i];
}

__attribute__((noinline)) void Grab(Capture& capture, uint64_t stack_top) {
  ucontext_t context;
  getcontext(&context);
  capture.regs = PerfDumpOf(context);
  capture.return_addresses.push_back(reinterpret_cast<uint64_t>(__builtin_return_address(0)));
  const uint64_t sp = static_cast<uint64_t>(context.uc_mcontext.gregs[REG_RSP]);
  capture.valid = std::min<uint64_t>(kStackCopySize, stack_top - sp);
  capture.stack.assign(kStackCopySize, std::byte{0});
  CopyRawStack(sp, capture.stack.data(), capture.valid);
  asm volatile("" ::: "memory");
}

// Captures `depth` calls of itself below its first call.
__attribute__((noinline)) void Descend(int depth, Capture& capture, uint64_t stack_top) {
  if (depth == 0) {
    Grab(capture, stack_top);
  } else {
    Descend(depth - 1, capture, stack_top);
  }
  capture.return_addresses.push_back(reinterpret_cast<uint64_t>(__builtin_return_address(0)));
  asm volatile("" ::: "memory");
}

// A file mapping of /proc/self/maps.
// The executable file mappings of this process, as perf synthesizes them.
std::vector<SelfMapping> ExecutableSelfMappings() {
  std::vector<SelfMapping> mappings;
  for (SelfMapping& m : ReadSelfMappings()) {
    if (m.path.empty() || m.path[0] != '/' || m.perms.size() < 3 || m.perms[2] != 'x') continue;
    mappings.push_back(std::move(m));
  }
  return mappings;
}

perf::EventAttr PerfDwarfAttr() {
  perf::EventAttr attr;
  attr.SetU32(attr_offset::kType, PERF_TYPE_SOFTWARE);
  attr.set_sample_type(kSampleType);
  attr.SetU64(attr_offset::kFlags, (uint64_t{1} << kAttrFlagSampleIdAll) |
                                       (uint64_t{1} << kAttrFlagExcludeCallchainUser));
  attr.SetU64(attr_offset::kSampleRegsUser, kPerfRegsMask);
  attr.SetU32(attr_offset::kSampleStackUser, kStackCopySize);
  attr.ids() = {7};
  return attr;
}

std::vector<std::byte> RecordBytes(uint32_t type, uint16_t misc,
                                   const std::vector<std::byte>& body) {
  absl::StatusOr<std::vector<std::byte>> bytes = perf::MakeRecordBytes(type, misc, body);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return bytes.value_or(std::vector<std::byte>());
}

void AppendName(std::vector<std::byte>& body, const std::string& name) {
  std::vector<std::byte> padded(base::AlignUp(name.size() + 1, 8));
  std::memcpy(padded.data(), name.data(), name.size());
  base::AppendBytes(body, padded);
}

std::vector<std::byte> TrailerOf(const perf::EventAttr& attr, uint32_t pid, uint32_t tid,
                                 uint64_t time) {
  perf::SampleId id;
  id.pid = pid;
  id.tid = tid;
  id.time = time;
  std::vector<std::byte> trailer;
  perf::EncodeSampleId(perf::SampleFormat::Of(attr), id, trailer);
  return trailer;
}

std::vector<std::byte> Mmap2Of(const perf::EventAttr& attr, uint32_t pid, const SelfMapping& m,
                               uint64_t time) {
  std::vector<std::byte> body;
  base::Append(body, pid);
  base::Append(body, pid);
  base::Append(body, m.start);
  base::Append(body, m.end - m.start);
  base::Append(body, m.offset);
  base::Append(body, m.major);
  base::Append(body, m.minor);
  base::Append(body, m.inode);
  base::Append(body, uint64_t{0});  // ino_generation
  // PROT_READ, PROT_WRITE as mapped; every mapping here executes.
  base::Append(body, uint32_t{(m.perms[0] == 'r' ? 1u : 0u) | (m.perms[1] == 'w' ? 2u : 0u) | 4u});
  base::Append(body, uint32_t{2});  // MAP_PRIVATE
  AppendName(body, m.path);
  base::AppendBytes(body, TrailerOf(attr, pid, pid, time));
  return RecordBytes(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER, body);
}

std::vector<std::byte> CommOf(const perf::EventAttr& attr, uint32_t pid, uint32_t tid,
                              const std::string& comm, uint64_t time) {
  std::vector<std::byte> body;
  base::Append(body, pid);
  base::Append(body, tid);
  AppendName(body, comm);
  base::AppendBytes(body, TrailerOf(attr, pid, tid, time));
  return RecordBytes(PERF_RECORD_COMM, 0, body);
}

std::vector<std::byte> SampleOf(const perf::EventAttr& attr, const perf::Sample& sample) {
  std::vector<std::byte> body;
  perf::EncodeSample(perf::SampleFormat::Of(attr), sample, body);
  return RecordBytes(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, body);
}

bool IsHidden(size_t sample) { return kHiddenFrom <= sample && sample < kHiddenTo; }

// The frames after PERF_CONTEXT_USER, 0 without it.
uint64_t UserFramesIn(const std::vector<uint64_t>& chain) {
  auto user = std::find(chain.begin(), chain.end(), PERF_CONTEXT_USER);
  return user == chain.end() ? 0 : static_cast<uint64_t>(chain.end() - user - 1);
}

// What the tool wrote: the header it left and every record.
struct ToolOutput {
  perf::Header header;
  std::vector<std::vector<std::byte>> records;
  UnwindStats stats;
};

UnwindSettings Settings(size_t jobs, bool take_over_frames, bool keep_stack = false) {
  UnwindSettings settings;
  settings.jobs = jobs;
  settings.take_over_frames = take_over_frames;
  settings.keep_stack = keep_stack;
  return settings;
}

class UnwindToolTest : public ::testing::Test {
 protected:
  // The recording, made once: captures are the slow part under TSan.
  static void SetUpTestSuite() {
    recording_ = new Recording();
    MakeRecording(*recording_);
  }
  static void TearDownTestSuite() {
    delete recording_;
    recording_ = nullptr;
  }

  void SetUp() override {
    ASSERT_EQ(recording_->samples.size(), kSamples) << "the recording could not be made";
  }

  struct Recording {
    perf::EventAttr attr = PerfDwarfAttr();
    std::vector<std::vector<std::byte>> records;  // in their order
    std::vector<Capture> captures;                // one per sample
    std::vector<perf::Sample> samples;            // as encoded, less the stack copy
  };

  static void MakeRecording(Recording& r) {
    const uint32_t pid = static_cast<uint32_t>(getpid());
    const uint32_t tid = static_cast<uint32_t>(gettid());
    std::unique_ptr<SelfMaps> self = ReadSelfMaps();
    int here = 0;
    const uint64_t stack_top = MappingEnd(*self->maps, reinterpret_cast<uint64_t>(&here));
    ASSERT_NE(stack_top, 0u);
    const std::vector<SelfMapping> mappings = ExecutableSelfMappings();
    ASSERT_GE(mappings.size(), 2u) << "the test binary and libc at least";
    const uint64_t grab = reinterpret_cast<uint64_t>(&Grab);
    auto holds_grab = [grab](const SelfMapping& m) { return m.start <= grab && grab < m.end; };
    auto code_mapping = std::find_if(mappings.begin(), mappings.end(), holds_grab);
    ASSERT_NE(code_mapping, mappings.end());
    const SelfMapping code = *code_mapping;

    uint64_t time = kFirstTime;
    r.records.push_back(CommOf(r.attr, pid, tid, "unwind_tool_test", time++));
    for (const SelfMapping& m : mappings) r.records.push_back(Mmap2Of(r.attr, pid, m, time++));
    for (size_t i = 0; i < kSamples; ++i) {
      if (i == kCommAt) r.records.push_back(CommOf(r.attr, pid, tid, "renamed", time++));
      if (i == kOtherFileAt) {
        SelfMapping other = mappings.back();
        other.start = 0x200000;
        other.end = other.start + 0x1000;
        ASSERT_FALSE(self->maps->Find(other.start).has_value());
        r.records.push_back(Mmap2Of(r.attr, pid, other, time++));
      }
      if (i == kHiddenFrom) {
        SelfMapping missing = code;
        missing.path = kMissingFile;
        missing.inode += 1;
        r.records.push_back(Mmap2Of(r.attr, pid, missing, time++));
      }
      if (i == kHiddenTo) r.records.push_back(Mmap2Of(r.attr, pid, code, time++));
      static_assert(kHiddenTo < kChangingSamples && kCommAt < kChangingSamples);
      if (i % kRoundEvery == kRoundEvery - 1) {
        r.records.push_back(RecordBytes(PERF_RECORD_FINISHED_ROUND, 0, {}));
      }
      Capture& capture = r.captures.emplace_back();
      Descend(static_cast<int>(i % kDepths), capture, stack_top);
      perf::Sample& s = r.samples.emplace_back();
      s.ip = capture.regs.values[kPerfIpRegister];
      s.pid = pid;
      s.tid = tid;
      s.time = time++;
      s.period = 1000 + i;
      if (i % kKernelPartEvery == 0) s.callchain = {PERF_CONTEXT_KERNEL, kKernelFrame};
      s.regs_user = capture.regs;
      s.stack_user.data = capture.stack;
      s.stack_user.dyn_size = capture.valid;
      r.records.push_back(SampleOf(r.attr, s));
      s.stack_user = perf::UserStack();  // kept once, in the capture
    }
  }

  // Runs the whole recording through a tool, records given as lasting (the
  // stack copies are read where they lie) or not (they are copied).
  static ToolOutput Run(const UnwindSettings& settings, bool lasting = true) {
    ToolOutput output;
    output.header.events = perf::EventList({recording_->attr});
    UnwindTool tool(settings);
    pipeline::ToolFeed feed(tool);
    EXPECT_TRUE(feed.Begin(output.header).ok());
    testing::CollectingSink sink;
    uint64_t offset = 0;
    for (const std::vector<std::byte>& bytes : recording_->records) {
      perf::Record record(bytes, offset);
      record.set_lasting(lasting);
      offset += bytes.size();
      absl::Status s = feed.Process(record, sink);
      EXPECT_TRUE(s.ok()) << s;
      if (!s.ok()) return output;
    }
    perf::FeatureSet features;
    absl::Status s = feed.End(sink, features);
    EXPECT_TRUE(s.ok()) << s;
    for (const perf::OwnedRecord& record : sink.records) {
      const base::Bytes bytes = record.view().bytes();
      output.records.emplace_back(bytes.begin(), bytes.end());
    }
    output.stats = tool.stats();
    return output;
  }

  // The samples of `output`, decoded with the attr the tool left.
  static std::vector<perf::Sample> SamplesOf(const ToolOutput& output) {
    std::vector<perf::Sample> samples;
    for (const std::vector<std::byte>& bytes : output.records) {
      const perf::Record record(bytes, 0);
      if (record.type() != PERF_RECORD_SAMPLE) continue;
      absl::StatusOr<perf::Sample> s =
          perf::DecodeSample(output.header.events.format(0), record.body());
      EXPECT_TRUE(s.ok()) << s.status();
      samples.push_back(s.value_or(perf::Sample()));
    }
    return samples;
  }

  // The frames ProcessUnwinder finds for a capture on its own, in the maps
  // of /proc/self/maps, every frame unwound.
  static std::vector<uint64_t> FramesUnwoundDirectly(const Capture& capture) {
    static std::unique_ptr<SelfMaps> self = ReadSelfMaps();
    static ModuleFiles files("", {});
    static ProcessUnwinder unwinder(getpid(), self->maps, files, /*take_over_frames=*/false);
    absl::StatusOr<InitialRegisters> registers =
        InitialRegistersOf(Arch::kX86_64, kPerfRegsMask, capture.regs);
    EXPECT_TRUE(registers.ok()) << registers.status();
    const base::Bytes stack(capture.stack.data(), capture.valid);
    return unwinder.Unwind(gettid(), *registers, stack, 127).frames;
  }

  static std::vector<uint32_t> TypesOf(const std::vector<std::vector<std::byte>>& records) {
    std::vector<uint32_t> types;
    for (const std::vector<std::byte>& bytes : records)
      types.push_back(perf::Record(bytes, 0).type());
    return types;
  }

  static Recording* recording_;
};

UnwindToolTest::Recording* UnwindToolTest::recording_ = nullptr;

// However the lanes shared the windows out, the bytes are the same. One
// lane takes a thread's outer frames over from sample to sample; a thread
// that runs chunks starts its own lane without them, so a run whose count of
// frames taken over differs from one job's is a run where the threads took
// part: runs are repeated (a few at most) until one is.
TEST_F(UnwindToolTest, TheOutputIsTheSameBytesWhateverTheJobs) {
  const ToolOutput one = Run(Settings(1, true));
  ASSERT_EQ(one.records.size(), recording_->records.size());
  for (size_t jobs : {size_t{2}, size_t{3}}) {
    bool threads_took_part = false;
    for (int run = 0; run < kRunsForThreadsToTakePart && !threads_took_part; ++run) {
      const ToolOutput many = Run(Settings(jobs, true));
      EXPECT_TRUE(many.records == one.records) << jobs << " jobs, run " << run;
      EXPECT_TRUE(std::ranges::equal(many.header.events.attrs()[0].bytes(),
                                     one.header.events.attrs()[0].bytes()));
      threads_took_part = many.stats.frames_taken_over != one.stats.frames_taken_over;
    }
    EXPECT_TRUE(threads_took_part) << "with " << jobs << " jobs, the caller unwound every "
                                   << "sample in " << kRunsForThreadsToTakePart << " runs";
  }
}

TEST_F(UnwindToolTest, TheOutputIsTheSameBytesWithoutTakingFramesOver) {
  const ToolOutput taken = Run(Settings(1, true));
  for (size_t jobs : {size_t{1}, size_t{3}}) {
    const ToolOutput unwound = Run(Settings(jobs, false));
    EXPECT_TRUE(unwound.records == taken.records) << jobs << " jobs";
  }
}

TEST_F(UnwindToolTest, StacksCopiedOutOfTheInputUnwindAlike) {
  const ToolOutput viewed = Run(Settings(3, true), /*lasting=*/true);
  const ToolOutput copied = Run(Settings(3, true), /*lasting=*/false);
  EXPECT_TRUE(copied.records == viewed.records);
}

TEST_F(UnwindToolTest, RecordsKeepTheirOrderAndSamplesTheirTimes) {
  for (size_t jobs : {size_t{1}, size_t{3}}) {
    SCOPED_TRACE(jobs);
    const ToolOutput output = Run(Settings(jobs, true));
    EXPECT_EQ(TypesOf(output.records), TypesOf(recording_->records));
    ASSERT_EQ(output.records.size(), recording_->records.size());
    // Every record but a sample is written as it came (the COMM and MMAP2
    // mid-run included), where it came.
    for (size_t i = 0; i < output.records.size(); ++i) {
      if (perf::Record(recording_->records[i], 0).type() == PERF_RECORD_SAMPLE) continue;
      EXPECT_TRUE(output.records[i] == recording_->records[i]) << "record " << i;
    }
    const std::vector<perf::Sample> samples = SamplesOf(output);
    ASSERT_EQ(samples.size(), kSamples);
    for (size_t i = 0; i < kSamples; ++i) {
      EXPECT_EQ(samples[i].time, recording_->samples[i].time) << "sample " << i;
      EXPECT_EQ(samples[i].period, recording_->samples[i].period) << "sample " << i;
      EXPECT_EQ(samples[i].ip, recording_->samples[i].ip) << "sample " << i;
    }
  }
}

TEST_F(UnwindToolTest, ACallChainIsTheUnwoundStackOfItsSample) {
  const ToolOutput output = Run(Settings(3, true));
  const std::vector<perf::Sample> samples = SamplesOf(output);
  ASSERT_EQ(samples.size(), kSamples);
  for (size_t i = 0; i < kSamples; ++i) {
    SCOPED_TRACE(::testing::Message() << "sample " << i);
    const Capture& capture = recording_->captures[i];
    const std::vector<uint64_t>& chain = samples[i].callchain;
    const std::vector<uint64_t>& kernel = recording_->samples[i].callchain;
    if (IsHidden(i)) {
      // Its code in a file not found: nothing unwound, the chain as recorded.
      EXPECT_EQ(chain, kernel);
      continue;
    }
    // The recorded kernel part, then the user frames.
    ASSERT_GT(chain.size(), kernel.size() + 1);
    EXPECT_TRUE(std::equal(kernel.begin(), kernel.end(), chain.begin()));
    const std::vector<uint64_t> user(chain.begin() + static_cast<ptrdiff_t>(kernel.size()) + 1,
                                     chain.end());
    EXPECT_EQ(chain[kernel.size()], PERF_CONTEXT_USER);
    // The pc, then Grab's call site in Descend and Descend's in itself and
    // in this test: each return address minus 1.
    ASSERT_GT(user.size(), capture.return_addresses.size());
    EXPECT_EQ(user[0], recording_->samples[i].ip);
    for (size_t k = 0; k < capture.return_addresses.size(); ++k) {
      EXPECT_EQ(user[k + 1], capture.return_addresses[k] - 1) << "frame " << k + 1;
    }
    EXPECT_EQ(user, FramesUnwoundDirectly(capture));
  }
}

TEST_F(UnwindToolTest, StackCopiesLeaveTheAttrAndTheSamples) {
  const ToolOutput output = Run(Settings(3, true));
  const perf::EventAttr& attr = output.header.events.attrs()[0];
  EXPECT_EQ(attr.sample_type(), (kSampleType & ~kStackFields) | PERF_SAMPLE_CALLCHAIN);
  EXPECT_EQ(attr.sample_regs_user(), 0u);
  EXPECT_EQ(attr.sample_stack_user(), 0u);
  EXPECT_FALSE(attr.flag(kAttrFlagExcludeCallchainUser));
  EXPECT_TRUE(attr.sample_id_all());
  for (const std::vector<std::byte>& bytes : output.records) {
    if (perf::Record(bytes, 0).type() == PERF_RECORD_SAMPLE) {
      EXPECT_LT(bytes.size(), 2048u) << "a sample still carries its stack copy";
    }
  }
  for (const perf::Sample& s : SamplesOf(output)) {
    EXPECT_EQ(s.regs_user.abi, 0u);
    EXPECT_TRUE(s.stack_user.data.empty());
  }
}

TEST_F(UnwindToolTest, KeepStackKeepsTheRegistersAndTheCopies) {
  const ToolOutput output = Run(Settings(3, true, /*keep_stack=*/true));
  const perf::EventAttr& attr = output.header.events.attrs()[0];
  EXPECT_EQ(attr.sample_type(), kSampleType);
  EXPECT_EQ(attr.sample_regs_user(), kPerfRegsMask);
  EXPECT_EQ(attr.sample_stack_user(), kStackCopySize);
  EXPECT_FALSE(attr.flag(kAttrFlagExcludeCallchainUser));
  const std::vector<perf::Sample> samples = SamplesOf(output);
  ASSERT_EQ(samples.size(), kSamples);
  const ToolOutput dropped = Run(Settings(1, true));
  const std::vector<perf::Sample> without = SamplesOf(dropped);
  for (size_t i = 0; i < kSamples; ++i) {
    EXPECT_EQ(samples[i].regs_user, recording_->samples[i].regs_user) << "sample " << i;
    EXPECT_TRUE(samples[i].stack_user.data == recording_->captures[i].stack) << "sample " << i;
    EXPECT_EQ(samples[i].stack_user.dyn_size, recording_->captures[i].valid) << "sample " << i;
    EXPECT_EQ(samples[i].callchain, without[i].callchain) << "sample " << i;
  }
}

TEST_F(UnwindToolTest, StatsCountEverySampleAndEveryFrame) {
  for (bool take_over : {true, false}) {
    for (size_t jobs : {size_t{1}, size_t{3}}) {
      SCOPED_TRACE(::testing::Message() << jobs << " jobs, take_over_frames " << take_over);
      const ToolOutput output = Run(Settings(jobs, take_over));
      const UnwindStats& stats = output.stats;
      EXPECT_EQ(stats.samples, kSamples);
      EXPECT_EQ(stats.with_stack, kSamples);
      constexpr size_t kHidden = kHiddenTo - kHiddenFrom;
      EXPECT_EQ(stats.full, kSamples - kHidden) << DescribeUnwindStats(stats);
      EXPECT_EQ(stats.partly_total(), 0u) << DescribeUnwindStats(stats);
      EXPECT_EQ(stats.not_at_all[static_cast<size_t>(UnwindStop::kUnknownMap)], kHidden)
          << DescribeUnwindStats(stats);
      EXPECT_EQ(stats.not_at_all_total(), kHidden) << DescribeUnwindStats(stats);
      uint64_t frames = 0;
      for (const perf::Sample& s : SamplesOf(output)) frames += UserFramesIn(s.callchain);
      EXPECT_EQ(stats.frames, frames);
      if (take_over) {
        // The same thread's stacks, one sample after another: most of their
        // outer frames are taken over, in every lane.
        EXPECT_GT(stats.frames_taken_over, frames / 2);
      } else {
        EXPECT_EQ(stats.frames_taken_over, 0u);
      }
    }
  }
}

#endif  // __x86_64__

}  // namespace
}  // namespace perftk::unwind
