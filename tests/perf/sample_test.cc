#include "perf/sample.h"

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perf/header.h"
#include "perftk/perf_abi.h"

namespace perftk::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

constexpr uint64_t kRegsUserMask = 0xff0f;      // 12 registers
constexpr uint64_t kRegsIntrMask = 0x80000001;  // 2 registers
constexpr uint64_t kAllReadFormat = PERF_FORMAT_TOTAL_TIME_ENABLED |
                                    PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID |
                                    PERF_FORMAT_LOST;

// Every sample_type bit the kernel defines, by name.
const std::vector<std::pair<std::string, uint64_t>>& AllBits() {
  static const auto* bits = new std::vector<std::pair<std::string, uint64_t>>{
      {"IP", PERF_SAMPLE_IP},
      {"TID", PERF_SAMPLE_TID},
      {"TIME", PERF_SAMPLE_TIME},
      {"ADDR", PERF_SAMPLE_ADDR},
      {"READ", PERF_SAMPLE_READ},
      {"CALLCHAIN", PERF_SAMPLE_CALLCHAIN},
      {"ID", PERF_SAMPLE_ID},
      {"CPU", PERF_SAMPLE_CPU},
      {"PERIOD", PERF_SAMPLE_PERIOD},
      {"STREAM_ID", PERF_SAMPLE_STREAM_ID},
      {"RAW", PERF_SAMPLE_RAW},
      {"BRANCH_STACK", PERF_SAMPLE_BRANCH_STACK},
      {"REGS_USER", PERF_SAMPLE_REGS_USER},
      {"STACK_USER", PERF_SAMPLE_STACK_USER},
      {"WEIGHT", PERF_SAMPLE_WEIGHT},
      {"DATA_SRC", PERF_SAMPLE_DATA_SRC},
      {"IDENTIFIER", PERF_SAMPLE_IDENTIFIER},
      {"TRANSACTION", PERF_SAMPLE_TRANSACTION},
      {"REGS_INTR", PERF_SAMPLE_REGS_INTR},
      {"PHYS_ADDR", PERF_SAMPLE_PHYS_ADDR},
      {"AUX", PERF_SAMPLE_AUX},
      {"CGROUP", PERF_SAMPLE_CGROUP},
      {"DATA_PAGE_SIZE", PERF_SAMPLE_DATA_PAGE_SIZE},
      {"CODE_PAGE_SIZE", PERF_SAMPLE_CODE_PAGE_SIZE},
      {"WEIGHT_STRUCT", PERF_SAMPLE_WEIGHT_STRUCT},
  };
  return *bits;
}

uint64_t AllSampleTypeBits() {
  uint64_t all = 0;
  for (const auto& [name, bit] : AllBits()) all |= bit;
  // WEIGHT and WEIGHT_STRUCT share one field; the kernel refuses both.
  return all & ~PERF_SAMPLE_WEIGHT;
}

AttrBuilder AttrWith(uint64_t sample_type, uint64_t read_format = kAllReadFormat,
                     uint64_t branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX |
                                                   PERF_SAMPLE_BRANCH_COUNTERS) {
  return AttrBuilder()
      .Type(PERF_TYPE_HARDWARE)
      .SampleType(sample_type)
      .ReadFormat(read_format)
      .BranchSampleType(branch_sample_type)
      .RegsUser(kRegsUserMask)
      .RegsIntr(kRegsIntrMask);
}

// Branch flags in little-endian numbering: mispred, cycles = 0x1234,
// type = 5, spec = 2, new_type = 9, priv = 3.
constexpr uint64_t kBranchFlags =
    1ULL | (0x1234ULL << 4) | (5ULL << 20) | (2ULL << 24) | (9ULL << 26) | (3ULL << 30);

// A sample with every field set to a distinct value, shaped for `attr`:
// fields the attr does not carry are left empty, as DecodeSample leaves them.
perf::Sample SampleFor(const AttrBuilder& attr) {
  const uint64_t t = attr.sample_type();
  const uint64_t rf = attr.read_format();
  const uint64_t bst = attr.branch_sample_type();
  auto has = [t](uint64_t bit) { return (t & bit) != 0; };
  perf::Sample s;
  if (has(PERF_SAMPLE_IDENTIFIER)) s.identifier = 0x1d;
  if (has(PERF_SAMPLE_IP)) s.ip = 0xffffffff81001234;
  if (has(PERF_SAMPLE_TID)) s.pid = 1000, s.tid = 1001;
  if (has(PERF_SAMPLE_TIME)) s.time = 0x123456789abcdef0;
  if (has(PERF_SAMPLE_ADDR)) s.addr = 0x7ffd12345678;
  if (has(PERF_SAMPLE_ID)) s.id = 0x1d;
  if (has(PERF_SAMPLE_STREAM_ID)) s.stream_id = 0x5eed;
  if (has(PERF_SAMPLE_CPU)) s.cpu = 7, s.cpu_reserved = 0x0a0b0c0d;
  if (has(PERF_SAMPLE_PERIOD)) s.period = 250000;
  if (has(PERF_SAMPLE_READ)) {
    if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) s.read.time_enabled = 0xe0e0;
    if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) s.read.time_running = 0xd0d0;
    int n = (rf & PERF_FORMAT_GROUP) ? 3 : 1;
    for (int i = 0; i < n; ++i) {
      perf::ReadValue v;
      v.value = 100 + i;
      if (rf & PERF_FORMAT_ID) v.id = 0x1d + i;
      if (rf & PERF_FORMAT_LOST) v.lost = 7 * i + 1;
      s.read.values.push_back(v);
    }
  }
  if (has(PERF_SAMPLE_CALLCHAIN)) {
    s.callchain = {PERF_CONTEXT_KERNEL,
                   0xffffffff81001234,
                   0xffffffff81005678,
                   PERF_CONTEXT_USER,
                   0x401000,
                   0x7f0000001000,
                   PERF_CONTEXT_GUEST,
                   PERF_CONTEXT_GUEST_KERNEL,
                   0xffff800000001000,
                   PERF_CONTEXT_HV,
                   PERF_CONTEXT_USER_DEFERRED};
  }
  if (has(PERF_SAMPLE_RAW))
    s.raw = ToBytes({0x10, 0x20, 0x30, 0x40, 0x50, 0x60, 0x70, 0x80, 1, 2, 3, 4});
  if (has(PERF_SAMPLE_BRANCH_STACK)) {
    if (bst & PERF_SAMPLE_BRANCH_HW_INDEX) s.branch_stack.hw_idx = 2;
    s.branch_stack.entries = {{0x401000, 0x402000, kBranchFlags},
                              {0x402010, 0x401000, 0},
                              {0x403000, 0x404000, ~0ULL >> 31}};
    if (bst & PERF_SAMPLE_BRANCH_COUNTERS) s.branch_stack.counters = {11, 22, 33};
  }
  auto regs = [](uint64_t mask, uint64_t base) {
    perf::RegisterDump r;
    r.abi = 2;  // PERF_SAMPLE_REGS_ABI_64
    for (int i = 0; i < std::popcount(mask); ++i) r.values.push_back(base + i);
    return r;
  };
  if (has(PERF_SAMPLE_REGS_USER)) s.regs_user = regs(attr.regs_user(), 0x1000);
  if (has(PERF_SAMPLE_STACK_USER)) {
    for (int i = 0; i < 32; ++i) s.stack_user.data.push_back(static_cast<std::byte>(i * 3));
    s.stack_user.dyn_size = 24;
  }
  if (t & PERF_SAMPLE_WEIGHT_TYPE) s.weight = 0x0004000300000201;
  if (has(PERF_SAMPLE_DATA_SRC)) s.data_src = 0x68100142;
  if (has(PERF_SAMPLE_TRANSACTION)) s.transaction = 0xabcd00000006;
  if (has(PERF_SAMPLE_REGS_INTR)) s.regs_intr = regs(attr.regs_intr(), 0x2000);
  if (has(PERF_SAMPLE_PHYS_ADDR)) s.phys_addr = 0x12345000;
  if (has(PERF_SAMPLE_CGROUP)) s.cgroup = 0x77;
  if (has(PERF_SAMPLE_DATA_PAGE_SIZE)) s.data_page_size = 4096;
  if (has(PERF_SAMPLE_CODE_PAGE_SIZE)) s.code_page_size = 2 << 20;
  if (has(PERF_SAMPLE_AUX)) s.aux = ToBytes({9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0});
  return s;
}

std::vector<AttrBuilder> AttrsOfEveryBitAloneAndAll() {
  std::vector<AttrBuilder> attrs;
  for (const auto& [name, bit] : AllBits()) attrs.push_back(AttrWith(bit));
  attrs.push_back(AttrWith(AllSampleTypeBits()));
  attrs.push_back(AttrWith(AllSampleTypeBits(), kAllReadFormat | PERF_FORMAT_GROUP, 0));
  return attrs;
}

// Checks both directions of the codec for one attr and sample.
void ExpectRoundTrip(const AttrBuilder& attr, const perf::Sample& sample) {
  const perf::SampleFormat format = attr.Format();
  std::vector<std::byte> bytes = SampleFields(attr, sample).Serialize(kNative);

  absl::StatusOr<perf::Sample> decoded = perf::DecodeSample(format, bytes);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_TRUE(*decoded == sample);

  std::vector<std::byte> encoded;
  perf::EncodeSample(format, *decoded, encoded);
  EXPECT_EQ(encoded, bytes);

  std::vector<std::byte> reencoded;
  perf::EncodeSample(format, sample, reencoded);
  EXPECT_EQ(reencoded, bytes);
}

TEST(SampleCodecTest, EveryBitAloneAndAllTogetherRoundTrip) {
  for (const AttrBuilder& attr : AttrsOfEveryBitAloneAndAll()) {
    SCOPED_TRACE(absl::StrCat("sample_type 0x", absl::Hex(attr.sample_type())));
    ExpectRoundTrip(attr, SampleFor(attr));
  }
}

TEST(SampleCodecTest, DecodingIntoOneReusedSampleEqualsAFreshDecode) {
  // Each attr's sample decoded into the Sample the previous (larger or
  // smaller) one left behind: nothing of the previous may survive.
  std::vector<AttrBuilder> attrs = AttrsOfEveryBitAloneAndAll();
  std::vector<AttrBuilder> order = attrs;
  order.insert(order.end(), attrs.rbegin(), attrs.rend());
  perf::Sample reused = SampleFor(AttrWith(AllSampleTypeBits()));
  for (const AttrBuilder& attr : order) {
    SCOPED_TRACE(absl::StrCat("sample_type 0x", absl::Hex(attr.sample_type())));
    std::vector<std::byte> bytes = SampleFields(attr, SampleFor(attr)).Serialize(kNative);
    ASSERT_TRUE(perf::DecodeSampleInto(attr.Format(), bytes, reused).ok());
    EXPECT_TRUE(reused == SampleFor(attr));
  }
}

// DecodeSampleInto reuses the callchain's length between samples of one
// format: a shorter chain after a longer one, an empty one, and a sample
// cut short before its chain must show nothing of the earlier chain.
TEST(SampleCodecTest, AReusedCallchainTakesEachSamplesLength) {
  const AttrBuilder attr = AttrWith(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN);
  perf::Sample reused;
  for (const std::vector<uint64_t>& chain :
       {std::vector<uint64_t>{PERF_CONTEXT_USER, 1, 2, 3, 4, 5}, std::vector<uint64_t>{9, 8},
        std::vector<uint64_t>{}, std::vector<uint64_t>{PERF_CONTEXT_KERNEL, 7, 6, 5}}) {
    perf::Sample s = SampleFor(attr);
    s.callchain = chain;
    std::vector<std::byte> bytes = SampleFields(attr, s).Serialize(kNative);
    ASSERT_TRUE(perf::DecodeSampleInto(attr.Format(), bytes, reused).ok());
    EXPECT_EQ(reused.callchain, chain);
  }
  std::vector<std::byte> cut = SampleFields(attr, SampleFor(attr)).Serialize(kNative);
  cut.resize(12);  // inside TID, before the chain
  EXPECT_FALSE(perf::DecodeSampleInto(attr.Format(), cut, reused).ok());
  EXPECT_TRUE(reused.callchain.empty());
}

TEST(SampleCodecTest, OffsetsSayWhereTheAddressFieldsLie) {
  for (const AttrBuilder& attr : AttrsOfEveryBitAloneAndAll()) {
    SCOPED_TRACE(absl::StrCat("sample_type 0x", absl::Hex(attr.sample_type())));
    const perf::Sample sample = SampleFor(attr);
    std::vector<std::byte> bytes = SampleFields(attr, sample).Serialize(kNative);
    perf::Sample decoded;
    perf::SampleFieldOffsets at;
    ASSERT_TRUE(perf::DecodeSampleInto(attr.Format(), bytes, decoded, &at).ok());
    EXPECT_EQ(at.size, bytes.size());
    const uint64_t t = attr.sample_type();
    auto check = [&](size_t offset, uint64_t bit, uint64_t value) {
      if (!(t & bit)) {
        EXPECT_EQ(offset, perf::SampleFieldOffsets::kAbsent);
        return;
      }
      ASSERT_LE(offset + 8, bytes.size());
      EXPECT_EQ(base::Load<uint64_t>(bytes.data() + offset), value);
    };
    check(at.ip, PERF_SAMPLE_IP, sample.ip);
    check(at.addr, PERF_SAMPLE_ADDR, sample.addr);
    check(at.callchain, PERF_SAMPLE_CALLCHAIN, sample.callchain.empty() ? 0 : sample.callchain[0]);
    if (t & PERF_SAMPLE_CALLCHAIN) {
      EXPECT_EQ(base::Load<uint64_t>(bytes.data() + at.callchain - 8), sample.callchain.size());
      EXPECT_EQ(
          base::Load<uint64_t>(bytes.data() + at.callchain + 8 * (sample.callchain.size() - 1)),
          sample.callchain.back());
    }
    check(at.branch_entries, PERF_SAMPLE_BRANCH_STACK,
          sample.branch_stack.entries.empty() ? 0 : sample.branch_stack.entries[0].from);
    if (t & PERF_SAMPLE_BRANCH_STACK) {
      const size_t last = at.branch_entries + 24 * (sample.branch_stack.entries.size() - 1);
      EXPECT_EQ(base::Load<uint64_t>(bytes.data() + last + 8),
                sample.branch_stack.entries.back().to);
    }
  }
}

TEST(SampleCodecTest, AStackLeftInThePayloadIsWhereTheOffsetsSay) {
  for (const AttrBuilder& attr : AttrsOfEveryBitAloneAndAll()) {
    SCOPED_TRACE(absl::StrCat("sample_type 0x", absl::Hex(attr.sample_type())));
    const perf::Sample sample = SampleFor(attr);
    std::vector<std::byte> bytes = SampleFields(attr, sample).Serialize(kNative);
    perf::Sample copied, left;
    perf::SampleFieldOffsets copied_at, left_at;
    ASSERT_TRUE(perf::DecodeSampleInto(attr.Format(), bytes, copied, &copied_at).ok());
    ASSERT_TRUE(perf::DecodeSampleInto(attr.Format(), bytes, left, &left_at,
                                       perf::UserStackCopy::kLeaveInPayload)
                    .ok());
    EXPECT_EQ(left_at.stack_user, copied_at.stack_user);
    EXPECT_EQ(left_at.size, bytes.size());
    EXPECT_TRUE(left.stack_user.data.empty());
    EXPECT_EQ(left.stack_user.dyn_size, copied.stack_user.dyn_size);
    left.stack_user.data = copied.stack_user.data;
    EXPECT_TRUE(left == copied) << "only the stack copy is left out";
    if (!(attr.sample_type() & PERF_SAMPLE_STACK_USER)) {
      EXPECT_EQ(left_at.stack_user, perf::SampleFieldOffsets::kAbsent);
      continue;
    }
    // The valid part (dyn_size bytes) of the copy, in the payload.
    ASSERT_EQ(left_at.stack_user_size, sample.stack_user.dyn_size);
    ASSERT_LE(left_at.stack_user + left_at.stack_user_size, bytes.size());
    EXPECT_TRUE(std::equal(sample.stack_user.data.begin(),
                           sample.stack_user.data.begin() + sample.stack_user.dyn_size,
                           bytes.begin() + left_at.stack_user));
  }
}

TEST(SampleCodecTest, OverwrittenAddressesEqualAFreshEncoding) {
  for (const AttrBuilder& attr : AttrsOfEveryBitAloneAndAll()) {
    SCOPED_TRACE(absl::StrCat("sample_type 0x", absl::Hex(attr.sample_type())));
    std::vector<std::byte> bytes = SampleFields(attr, SampleFor(attr)).Serialize(kNative);
    perf::Sample moved;
    perf::SampleFieldOffsets at;
    ASSERT_TRUE(perf::DecodeSampleInto(attr.Format(), bytes, moved, &at).ok());
    moved.ip += 0x1000;
    moved.addr += 0x2000;
    for (uint64_t& ip : moved.callchain) ip += 0x3000;
    for (perf::BranchEntry& branch : moved.branch_stack.entries) {
      branch.from += 0x4000;
      branch.to += 0x5000;
    }
    perf::OverwriteSampleAddresses(at, moved, bytes);
    std::vector<std::byte> encoded;
    perf::EncodeSample(attr.Format(), moved, encoded);
    EXPECT_EQ(bytes, encoded);
  }
}

TEST(SampleCodecTest, OffsetsSizeStopsBeforeBytesNoFieldTakes) {
  AttrBuilder attr = AttrWith(PERF_SAMPLE_IP | PERF_SAMPLE_TID);
  std::vector<std::byte> bytes = SampleFields(attr, SampleFor(attr)).Serialize(kNative);
  bytes.resize(bytes.size() + 8);  // junk past the last field
  perf::Sample decoded;
  perf::SampleFieldOffsets at;
  ASSERT_TRUE(perf::DecodeSampleInto(attr.Format(), bytes, decoded, &at).ok());
  EXPECT_EQ(at.size, 16u);
  EXPECT_EQ(at.ip, 0u);
}

TEST(SampleCodecTest, FieldsLandAtTheirKernelPositions) {
  // IDENTIFIER first, then IP, TID (pid, tid as u32), TIME, ... PERIOD.
  AttrBuilder attr = AttrWith(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
                              PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD);
  perf::Sample s = SampleFor(attr);
  std::vector<std::byte> bytes;
  perf::EncodeSample(attr.Format(), s, bytes);
  ASSERT_EQ(bytes.size(), 48u);
  EXPECT_EQ(base::Load<uint64_t>(bytes.data()), s.identifier);
  EXPECT_EQ(base::Load<uint64_t>(bytes.data() + 8), s.ip);
  EXPECT_EQ(base::Load<uint32_t>(bytes.data() + 16), s.pid);
  EXPECT_EQ(base::Load<uint32_t>(bytes.data() + 20), s.tid);
  EXPECT_EQ(base::Load<uint64_t>(bytes.data() + 24), s.time);
  EXPECT_EQ(base::Load<uint32_t>(bytes.data() + 32), s.cpu);
  EXPECT_EQ(base::Load<uint32_t>(bytes.data() + 36), s.cpu_reserved);
  EXPECT_EQ(base::Load<uint64_t>(bytes.data() + 40), s.period);
}

TEST(SampleCodecTest, EveryReadFormatCombination) {
  for (uint64_t rf = 0; rf < 32; ++rf) {
    SCOPED_TRACE(absl::StrCat("read_format 0x", absl::Hex(rf)));
    AttrBuilder attr = AttrWith(PERF_SAMPLE_READ | PERF_SAMPLE_TIME, rf);
    perf::Sample s = SampleFor(attr);
    ExpectRoundTrip(attr, s);

    // Size: group = nr + times + nr * (value + id + lost); else value + times + id + lost.
    const int times =
        ((rf & PERF_FORMAT_TOTAL_TIME_ENABLED) != 0) + ((rf & PERF_FORMAT_TOTAL_TIME_RUNNING) != 0);
    const int per_value = 1 + ((rf & PERF_FORMAT_ID) != 0) + ((rf & PERF_FORMAT_LOST) != 0);
    const size_t words = (rf & PERF_FORMAT_GROUP) ? 1 + times + 3 * per_value : times + per_value;
    std::vector<std::byte> bytes;
    perf::EncodeSample(attr.Format(), s, bytes);
    EXPECT_EQ(bytes.size(), 8 * (1 + words));
  }
}

TEST(SampleCodecTest, NonGroupReadPutsTimesBetweenValueAndId) {
  AttrBuilder attr = AttrWith(PERF_SAMPLE_READ, kAllReadFormat);
  std::vector<std::byte> bytes = SampleFields(attr, SampleFor(attr)).Serialize(kNative);
  ASSERT_EQ(bytes.size(), 40u);
  EXPECT_EQ(base::Load<uint64_t>(bytes.data()), 100u);         // value
  EXPECT_EQ(base::Load<uint64_t>(bytes.data() + 8), 0xe0e0u);  // time_enabled
  EXPECT_EQ(base::Load<uint64_t>(bytes.data() + 16), 0xd0d0u);
  EXPECT_EQ(base::Load<uint64_t>(bytes.data() + 24), 0x1du);  // id
  EXPECT_EQ(base::Load<uint64_t>(bytes.data() + 32), 1u);     // lost
}

TEST(SampleCodecTest, CallchainKeepsContextMarkers) {
  AttrBuilder attr = AttrWith(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN);
  perf::Sample s = SampleFor(attr);
  ExpectRoundTrip(attr, s);
  absl::StatusOr<perf::Sample> decoded =
      perf::DecodeSample(attr.Format(), SampleFields(attr, s).Serialize(kNative));
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->callchain.front(), PERF_CONTEXT_KERNEL);
  EXPECT_EQ(decoded->callchain[3], PERF_CONTEXT_USER);
  EXPECT_EQ(decoded->callchain.back(), PERF_CONTEXT_USER_DEFERRED);

  s.callchain.clear();  // nr = 0 is valid
  ExpectRoundTrip(attr, s);
}

TEST(SampleCodecTest, BranchStackWithEveryHwIndexAndCountersChoice) {
  for (uint64_t bst : {uint64_t{0}, PERF_SAMPLE_BRANCH_HW_INDEX, PERF_SAMPLE_BRANCH_COUNTERS,
                       PERF_SAMPLE_BRANCH_HW_INDEX | PERF_SAMPLE_BRANCH_COUNTERS}) {
    SCOPED_TRACE(absl::StrCat("branch_sample_type 0x", absl::Hex(bst)));
    AttrBuilder attr = AttrWith(PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK, 0, bst);
    perf::Sample s = SampleFor(attr);
    ExpectRoundTrip(attr, s);
    const size_t expected = 8 + 8 + ((bst & PERF_SAMPLE_BRANCH_HW_INDEX) ? 8 : 0) + 3 * 24 +
                            ((bst & PERF_SAMPLE_BRANCH_COUNTERS) ? 3 * 8 : 0);
    EXPECT_EQ(SampleFields(attr, s).size(), expected);

    s.branch_stack.entries.clear();
    s.branch_stack.counters.clear();
    ExpectRoundTrip(attr, s);
  }
}

TEST(SampleCodecTest, RegistersFollowTheMask) {
  AttrBuilder attr = AttrWith(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR);
  perf::Sample s = SampleFor(attr);
  EXPECT_EQ(s.regs_user.values.size(), 12u);
  EXPECT_EQ(s.regs_intr.values.size(), 2u);
  ExpectRoundTrip(attr, s);
  EXPECT_EQ(SampleFields(attr, s).size(), 8u * (1 + 12 + 1 + 2));

  // ABI 0 (no registers, e.g. a kernel thread): only the abi word.
  s.regs_user = perf::RegisterDump{};
  s.regs_intr = perf::RegisterDump{};
  ExpectRoundTrip(attr, s);
  EXPECT_EQ(SampleFields(attr, s).size(), 16u);
}

TEST(SampleCodecTest, StackUserOfSizeZeroHasNoDynSize) {
  AttrBuilder attr = AttrWith(PERF_SAMPLE_STACK_USER | PERF_SAMPLE_PHYS_ADDR);
  perf::Sample s = SampleFor(attr);
  ExpectRoundTrip(attr, s);
  EXPECT_EQ(SampleFields(attr, s).size(), 8u + 32 + 8 + 8);

  s.stack_user = perf::UserStack{};
  ExpectRoundTrip(attr, s);
  std::vector<std::byte> bytes = SampleFields(attr, s).Serialize(kNative);
  ASSERT_EQ(bytes.size(), 16u);  // size 0, then PHYS_ADDR right away
  EXPECT_EQ(base::Load<uint64_t>(bytes.data() + 8), s.phys_addr);
}

TEST(SampleCodecTest, RawAndAuxKeepTheirBytes) {
  AttrBuilder attr = AttrWith(PERF_SAMPLE_RAW | PERF_SAMPLE_AUX);
  perf::Sample s = SampleFor(attr);
  ExpectRoundTrip(attr, s);
  s.raw = ToBytes({1, 2, 3, 4});
  s.aux.clear();
  ExpectRoundTrip(attr, s);
}

TEST(SampleCodecTest, EveryTruncationIsAnError) {
  for (const AttrBuilder& attr : AttrsOfEveryBitAloneAndAll()) {
    SCOPED_TRACE(absl::StrCat("sample_type 0x", absl::Hex(attr.sample_type())));
    const perf::SampleFormat format = attr.Format();
    const std::vector<std::byte> bytes = SampleFields(attr, SampleFor(attr)).Serialize(kNative);
    for (size_t len = 0; len < bytes.size(); ++len) {
      std::vector<std::byte> cut(bytes.begin(), bytes.begin() + len);
      absl::StatusOr<perf::Sample> decoded = perf::DecodeSample(format, cut);
      ASSERT_FALSE(decoded.ok()) << "decoded a sample from " << len << " of " << bytes.size()
                                 << " bytes";
      EXPECT_THAT(decoded.status().message(), HasSubstr("sample ends inside"));
      EXPECT_FALSE(perf::SwapSamplePayload(format, cut).ok());
    }
  }
}

// A sample whose count field at `count_at` (byte offset) holds `count`.
std::vector<std::byte> WithCount(const AttrBuilder& attr, size_t count_at, uint64_t count,
                                 int width = 8) {
  std::vector<std::byte> bytes = SampleFields(attr, SampleFor(attr)).Serialize(kNative);
  if (width == 8) {
    base::Store<uint64_t>(bytes.data() + count_at, count);
  } else {
    base::Store<uint32_t>(bytes.data() + count_at, static_cast<uint32_t>(count));
  }
  return bytes;
}

TEST(SampleCodecTest, AbsurdCountsAreErrors) {
  struct Case {
    const char* what;
    AttrBuilder attr;
    size_t count_at;
    uint64_t count;
    int width;
  };
  const Case cases[] = {
      {"callchain nr 2^60", AttrWith(PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN), 8, 1ULL << 60, 8},
      {"callchain nr 2^64-1", AttrWith(PERF_SAMPLE_CALLCHAIN), 0, ~0ULL, 8},
      {"group read nr 2^60", AttrWith(PERF_SAMPLE_READ, kAllReadFormat | PERF_FORMAT_GROUP), 0,
       1ULL << 60, 8},
      {"group read nr 2^62", AttrWith(PERF_SAMPLE_READ, PERF_FORMAT_GROUP | PERF_FORMAT_ID), 0,
       1ULL << 62, 8},
      {"branch nr 2^60", AttrWith(PERF_SAMPLE_BRANCH_STACK), 0, 1ULL << 60, 8},
      {"branch nr 2^62 with counters",
       AttrWith(PERF_SAMPLE_BRANCH_STACK, 0, PERF_SAMPLE_BRANCH_COUNTERS), 0, 1ULL << 62, 8},
      {"branch nr one too many for counters",
       AttrWith(PERF_SAMPLE_BRANCH_STACK, 0, PERF_SAMPLE_BRANCH_COUNTERS), 0, 4, 8},
      {"raw size 2^32-1", AttrWith(PERF_SAMPLE_RAW), 0, 0xffffffff, 4},
      {"stack size 2^63", AttrWith(PERF_SAMPLE_STACK_USER), 0, 1ULL << 63, 8},
      {"stack size 2^64-8", AttrWith(PERF_SAMPLE_STACK_USER), 0, ~0ULL - 7, 8},
      {"aux size 2^64-1", AttrWith(PERF_SAMPLE_AUX), 0, ~0ULL, 8},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::vector<std::byte> bytes = WithCount(c.attr, c.count_at, c.count, c.width);
    absl::StatusOr<perf::Sample> decoded = perf::DecodeSample(c.attr.Format(), bytes);
    ASSERT_FALSE(decoded.ok());
    EXPECT_THAT(decoded.status().message(), HasSubstr("sample ends inside"));
  }
}

TEST(SampleCodecTest, ForeignOrderSwapsToTheNativeBytes) {
  for (const AttrBuilder& attr : AttrsOfEveryBitAloneAndAll()) {
    SCOPED_TRACE(absl::StrCat("sample_type 0x", absl::Hex(attr.sample_type())));
    const Fields fields = SampleFields(attr, SampleFor(attr));
    std::vector<std::byte> foreign = fields.Serialize(kForeign);
    ASSERT_TRUE(perf::SwapSamplePayload(attr.Format(), foreign).ok());
    EXPECT_EQ(foreign, fields.Serialize(kNative));
  }
}

TEST(SampleCodecTest, EmptySampleSwapsToNothing) {
  // sample_type 0: an empty payload is a whole sample, and swapping it copies
  // no bytes (found by the reader fuzzer: memcpy was handed null pointers).
  const AttrBuilder attr = AttrWith(0, 0);
  EXPECT_TRUE(perf::SwapSamplePayload(attr.Format(), base::MutableBytes()).ok());
}

TEST(SampleCodecTest, EveryReadFormatSwaps) {
  for (uint64_t rf = 0; rf < 32; ++rf) {
    SCOPED_TRACE(absl::StrCat("read_format 0x", absl::Hex(rf)));
    AttrBuilder attr = AttrWith(PERF_SAMPLE_READ | PERF_SAMPLE_TID, rf);
    const Fields fields = SampleFields(attr, SampleFor(attr));
    std::vector<std::byte> foreign = fields.Serialize(kForeign);
    ASSERT_TRUE(perf::SwapSamplePayload(attr.Format(), foreign).ok());
    EXPECT_EQ(foreign, fields.Serialize(kNative));
  }
}

TEST(SampleCodecTest, BigEndianBranchFlagsAreReallocated) {
  // The builder's big-endian allocation and perftk's reversal are inverses.
  for (uint64_t flags : std::vector<uint64_t>{kBranchFlags, 1, 2, 0xffffULL << 4, ~0ULL}) {
    uint64_t be = ToBigEndianBitfield(flags, kBranchFlagWidths);
    EXPECT_EQ(perf::ReverseBitfieldOrder(be, {1, 1, 1, 1, 16, 4, 2, 4, 3, 31}), flags);
  }
  // mispred (the first field) sits at the top bit of a big-endian word.
  EXPECT_EQ(ToBigEndianBitfield(1, kBranchFlagWidths), 1ULL << 63);
  // cycles = 1 is bit 4 little-endian, and bits 59..44 (value bit 0 = bit 44) big-endian.
  EXPECT_EQ(ToBigEndianBitfield(1ULL << 4, kBranchFlagWidths), 1ULL << 44);
}

// --- sample_id trailer ----------------------------------------------------

TEST(SampleIdTest, TrailerSizeAndIdPositions) {
  AttrBuilder attr = AttrWith(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
                              PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
                         .SampleIdAll();
  perf::SampleFormat f = attr.Format();
  EXPECT_EQ(f.trailer_size(), 32u);                     // TID, TIME, ID, CPU
  EXPECT_THAT(f.id_offset_in_sample(), Optional(24u));  // after IP, TID, TIME
  EXPECT_THAT(f.id_offset_from_end(), Optional(16u));   // ID, then CPU

  attr.SampleType(attr.sample_type() | PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_STREAM_ID);
  f = attr.Format();
  EXPECT_EQ(f.trailer_size(), 48u);
  EXPECT_THAT(f.id_offset_in_sample(), Optional(0u));
  EXPECT_THAT(f.id_offset_from_end(), Optional(8u));

  f = AttrWith(PERF_SAMPLE_ID).Format();  // no sample_id_all
  EXPECT_EQ(f.trailer_size(), 0u);
  EXPECT_THAT(f.id_offset_in_sample(), Optional(0u));
  EXPECT_EQ(f.id_offset_from_end(), std::nullopt);
  EXPECT_EQ(AttrWith(PERF_SAMPLE_IP).SampleIdAll().Format().id_offset_from_end(), std::nullopt);
  EXPECT_EQ(AttrWith(PERF_SAMPLE_IP).Format().id_offset_in_sample(), std::nullopt);
}

TEST(SampleIdTest, EncodeDecodeAndSwapEveryCombination) {
  const uint64_t kTrailerBits[] = {PERF_SAMPLE_TID,       PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
                                   PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,  PERF_SAMPLE_IDENTIFIER};
  for (int mask = 0; mask < 64; ++mask) {
    uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_PERIOD;  // not part of the trailer
    for (int i = 0; i < 6; ++i) {
      if (mask & (1 << i)) type |= kTrailerBits[i];
    }
    SCOPED_TRACE(absl::StrCat("sample_type 0x", absl::Hex(type)));
    AttrBuilder attr = AttrWith(type).SampleIdAll();
    perf::SampleId id;
    if (type & PERF_SAMPLE_TID) id.pid = 42, id.tid = 43;
    if (type & PERF_SAMPLE_TIME) id.time = 0x1122334455667788;
    if (type & PERF_SAMPLE_ID) id.id = 0x99;
    if (type & PERF_SAMPLE_STREAM_ID) id.stream_id = 0x98;
    if (type & PERF_SAMPLE_CPU) id.cpu = 5, id.cpu_reserved = 6;
    if (type & PERF_SAMPLE_IDENTIFIER) id.identifier = 0x99;

    RecordBuilder comm = MakeComm(42, 43, "worker").WithSampleId(attr, id);
    std::vector<std::byte> record = comm.Build(kNative);
    const perf::SampleFormat f = attr.Format();
    EXPECT_EQ(record.size(), 8 + 16 + f.trailer_size());

    absl::StatusOr<perf::SampleId> decoded = perf::DecodeSampleId(f, record);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_TRUE(*decoded == id);

    std::vector<std::byte> encoded;
    perf::EncodeSampleId(f, id, encoded);
    EXPECT_EQ(encoded, SampleIdFields(attr, id).Serialize(kNative));

    std::vector<std::byte> foreign_trailer = comm.Build(kForeign);
    perf::SwapSampleIdTrailer(f, foreign_trailer);
    EXPECT_TRUE(std::equal(foreign_trailer.end() - f.trailer_size(), foreign_trailer.end(),
                           record.end() - f.trailer_size()));
  }
}

TEST(SampleIdTest, TooShortRecordIsAnError) {
  AttrBuilder attr = AttrWith(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID).SampleIdAll();
  std::vector<std::byte> record = RecordBuilder(PERF_RECORD_EXIT).U64(1).U64(2).Build();
  absl::StatusOr<perf::SampleId> decoded = perf::DecodeSampleId(attr.Format(), record);
  ASSERT_FALSE(decoded.ok());
  EXPECT_THAT(decoded.status().message(), HasSubstr("too small for its 24-byte sample_id trailer"));
}

TEST(SampleIdTest, WithoutSampleIdAllThereIsNoTrailer) {
  AttrBuilder attr = AttrWith(PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
  std::vector<std::byte> record =
      MakeComm(1, 2, "x").WithSampleId(attr, perf::SampleId{.pid = 9}).Build();
  EXPECT_EQ(record.size(), 8u + 16);
  absl::StatusOr<perf::SampleId> decoded = perf::DecodeSampleId(attr.Format(), record);
  ASSERT_TRUE(decoded.ok());
  EXPECT_TRUE(*decoded == perf::SampleId{});
}

// --- which event a record belongs to --------------------------------------

perf::EventList TwoEvents(uint64_t sample_type_a, uint64_t sample_type_b) {
  perf::EventList events;
  events.Add(AttrWith(sample_type_a).SampleIdAll().Ids({10, 11}).Build());
  events.Add(AttrWith(sample_type_b).SampleIdAll().Ids({20, 21}).Build());
  return events;
}

// The event index as text, or the error message.
std::string IndexOrError(const perf::EventList& events, const std::vector<std::byte>& record) {
  absl::StatusOr<size_t> index = events.IndexOf(perftk::perf::Record(record, 0));
  return index.ok() ? absl::StrCat(*index) : std::string(index.status().message());
}

TEST(EventListTest, IndexOfByIdentifier) {
  // Different layouts; IDENTIFIER puts the id first in samples, last in trailers.
  const uint64_t a = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID;
  const uint64_t b =
      PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN;
  perf::EventList events = TwoEvents(a, b);
  AttrBuilder attr_b = AttrWith(b).SampleIdAll();
  perf::Sample s = SampleFor(attr_b);
  s.identifier = 21;
  std::vector<std::byte> sample = MakeSample(attr_b, s).Build();
  EXPECT_EQ(IndexOrError(events, sample), "1");

  std::vector<std::byte> comm =
      MakeComm(1, 1, "a").WithSampleId(AttrWith(a).SampleIdAll(), {.identifier = 11}).Build();
  EXPECT_EQ(IndexOrError(events, comm), "0");
  EXPECT_THAT(events.IndexOfId(20), Optional(1u));
  EXPECT_EQ(events.IndexOfId(30), std::nullopt);
}

TEST(EventListTest, IndexOfByIdAtTheSharedPosition) {
  // ID after IP and TID in both events; the layouts differ after it.
  const uint64_t a = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID | PERF_SAMPLE_PERIOD;
  const uint64_t b =
      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ID | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
  perf::EventList events = TwoEvents(a, b);
  for (uint64_t id : {10, 11, 20, 21}) {
    SCOPED_TRACE(id);
    AttrBuilder attr = AttrWith(id < 20 ? a : b).SampleIdAll();
    perf::Sample s = SampleFor(attr);
    s.id = id;
    EXPECT_EQ(IndexOrError(events, MakeSample(attr, s).Build()), id < 20 ? "0" : "1");
    // Trailers (TID, ID in both): the id is the last word.
    perf::SampleId trailer;
    trailer.pid = trailer.tid = 1;
    trailer.id = id;
    EXPECT_EQ(IndexOrError(events, MakeFork({.pid = 1}).WithSampleId(attr, trailer).Build()),
              id < 20 ? "0" : "1");
  }
}

TEST(EventListTest, UnknownIdAndShortRecordAreErrors) {
  const uint64_t type = PERF_SAMPLE_IP | PERF_SAMPLE_ID;
  perf::EventList events = TwoEvents(type, type);
  AttrBuilder attr = AttrWith(type);
  perf::Sample s = SampleFor(attr);
  s.id = 99;
  EXPECT_EQ(IndexOrError(events, MakeSample(attr, s).Build()),
            "SAMPLE record names event id 99, which no attr has");
  std::vector<std::byte> short_sample = RecordBuilder(PERF_RECORD_SAMPLE).U64(0x401000).Build();
  EXPECT_EQ(IndexOrError(events, short_sample),
            "SAMPLE record of 16 bytes is too short for its event id");
}

TEST(EventListTest, IdZeroIsTheFirstEvent) {
  // perf synthesizes COMM/MMAP records for running processes with a zeroed
  // sample_id; perf's evlist__id2evsel gives them the first event.
  const uint64_t type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
  perf::EventList events = TwoEvents(type, type);
  AttrBuilder attr = AttrWith(type).SampleIdAll();
  EXPECT_EQ(IndexOrError(events, MakeComm(1, 1, "x").WithSampleId(attr, perf::SampleId{}).Build()),
            "0");
  EXPECT_EQ(IndexOrError(events, MakeMmap({.filename = "[kernel.kallsyms]_text"})
                                     .WithSampleId(attr, perf::SampleId{})
                                     .Build()),
            "0");
}

TEST(EventListTest, OneEventOwnsEveryRecordAndNoneIsAnError) {
  perf::EventList one;
  one.Add(AttrWith(PERF_SAMPLE_IP).Build());
  EXPECT_EQ(IndexOrError(one, RecordBuilder(PERF_RECORD_SAMPLE).U64(1).Build()), "0");
  EXPECT_EQ(IndexOrError(perf::EventList(), RecordBuilder(PERF_RECORD_SAMPLE).U64(1).Build()),
            "the recording has no events");
}

TEST(EventListTest, WithoutIdsTheFirstEventIsTaken) {
  // perf's rule: without an id in the layout, records belong to the first event.
  perf::EventList events = TwoEvents(PERF_SAMPLE_IP, PERF_SAMPLE_IP);
  EXPECT_EQ(IndexOrError(events, RecordBuilder(PERF_RECORD_SAMPLE).U64(1).Build()), "0");
  EXPECT_EQ(IndexOrError(events, MakeComm(1, 1, "x").Build()), "0");
}

}  // namespace
}  // namespace perftk::testing
