#include "perf/attr.h"

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perftk/perf_abi.h"

namespace perftk::testing {
namespace {

using ::testing::HasSubstr;

AttrBuilder EveryField() {
  return AttrBuilder()
      .Type(PERF_TYPE_BREAKPOINT)
      .Config(0x1122334455667788)
      .SamplePeriod(4000)
      .SampleType(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER)
      .ReadFormat(PERF_FORMAT_ID | PERF_FORMAT_GROUP)
      .Flag(0)   // disabled
      .Flag(5)   // exclude_kernel
      .Flag(8)   // mmap
      .Flag(10)  // freq
      .Flag(kAttrFlagSampleIdAll)
      .Flag(23)  // mmap2
      .Flag(kAttrFlagUseClockid)
      .Flag(34)  // build_id
      .WakeupEvents(3)
      .BpType(2)
      .Config1(0x7ffc0000)
      .Config2(8)
      .BranchSampleType(PERF_SAMPLE_BRANCH_HW_INDEX | 1)
      .RegsUser(0xff0fff)
      .StackUser(8192)
      .Clockid(-7)
      .RegsIntr(0x3)
      .AuxWatermark(0x1000)
      .SampleMaxStack(127)
      .AuxSampleSize(0x2000)
      .SigData(0xdeadbeef)
      .Config3(0x55);
}

TEST(AttrTest, BuilderPutsFieldsAtTheAbiOffsets) {
  std::vector<std::byte> bytes = EveryField().Serialize(kNative);
  ASSERT_EQ(bytes.size(), PERF_ATTR_SIZE_VER8);
  auto u32 = [&](size_t at) { return base::Load<uint32_t>(bytes.data() + at); };
  auto u64 = [&](size_t at) { return base::Load<uint64_t>(bytes.data() + at); };
  using namespace attr_offset;
  EXPECT_EQ(u32(kType), PERF_TYPE_BREAKPOINT);
  EXPECT_EQ(u32(kSize), PERF_ATTR_SIZE_VER8);
  EXPECT_EQ(u64(kConfig), 0x1122334455667788u);
  EXPECT_EQ(u64(kSamplePeriod), 4000u);
  EXPECT_EQ(u64(kSampleType), PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER);
  EXPECT_EQ(u64(kReadFormat), PERF_FORMAT_ID | PERF_FORMAT_GROUP);
  EXPECT_EQ(u32(kWakeupEvents), 3u);
  EXPECT_EQ(u32(kBpType), 2u);
  EXPECT_EQ(u64(kConfig1), 0x7ffc0000u);
  EXPECT_EQ(u64(kConfig2), 8u);
  EXPECT_EQ(u64(kSampleRegsUser), 0xff0fffu);
  EXPECT_EQ(u32(kSampleStackUser), 8192u);
  EXPECT_EQ(static_cast<int32_t>(u32(kClockid)), -7);
  EXPECT_EQ(u64(kSampleRegsIntr), 3u);
  EXPECT_EQ(u32(kAuxWatermark), 0x1000u);
  EXPECT_EQ(base::Load<uint16_t>(bytes.data() + kSampleMaxStack), 127);
  EXPECT_EQ(u32(kAuxSampleSize), 0x2000u);
  EXPECT_EQ(u64(kSigData), 0xdeadbeefu);
  EXPECT_EQ(u64(kConfig3), 0x55u);
}

TEST(AttrTest, AccessorsReadTheFields) {
  perf::EventAttr attr = EveryField().Ids({1, 2}).Build();
  EXPECT_EQ(attr.size(), PERF_ATTR_SIZE_VER8);
  EXPECT_EQ(attr.type(), PERF_TYPE_BREAKPOINT);
  EXPECT_EQ(attr.config(), 0x1122334455667788u);
  EXPECT_EQ(attr.sample_type(), PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER);
  EXPECT_EQ(attr.read_format(), PERF_FORMAT_ID | PERF_FORMAT_GROUP);
  EXPECT_TRUE(attr.sample_id_all());
  EXPECT_TRUE(attr.flag(0));
  EXPECT_FALSE(attr.flag(1));
  EXPECT_TRUE(attr.flag(kAttrFlagUseClockid));
  EXPECT_TRUE(attr.flag(34));
  EXPECT_EQ(attr.config1(), 0x7ffc0000u);
  EXPECT_EQ(attr.config2(), 8u);
  EXPECT_EQ(attr.branch_sample_type(), PERF_SAMPLE_BRANCH_HW_INDEX | 1);
  EXPECT_EQ(attr.sample_regs_user(), 0xff0fffu);
  EXPECT_EQ(attr.sample_stack_user(), 8192u);
  EXPECT_EQ(attr.clockid(), -7);
  EXPECT_EQ(attr.sample_regs_intr(), 3u);
  EXPECT_EQ(attr.ids(), (std::vector<uint64_t>{1, 2}));
  EXPECT_EQ(perf::DescribeAttr(attr), "mem:0x7ffc0000");
}

TEST(AttrTest, OlderAndNewerAbiSizes) {
  for (uint32_t size :
       {PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER1, PERF_ATTR_SIZE_VER5, PERF_ATTR_SIZE_VER8, 160u}) {
    SCOPED_TRACE(size);
    AttrBuilder b = EveryField().Size(size).FutureWords({0xf1, 0xf2, 0xf3});
    std::vector<std::byte> bytes = b.Serialize(kNative);
    ASSERT_EQ(bytes.size(), size);
    absl::StatusOr<perf::EventAttr> attr = perf::EventAttr::FromBytes(bytes);
    ASSERT_TRUE(attr.ok());
    EXPECT_EQ(attr->size(), size);
    EXPECT_EQ(std::vector<std::byte>(attr->bytes().begin(), attr->bytes().end()), bytes);
    EXPECT_EQ(attr->config1(), 0x7ffc0000u);  // the last field of VER0
    EXPECT_EQ(attr->config2(), size >= 72 ? 8u : 0u);
    // Fields past the attr's end read as zero.
    EXPECT_EQ(attr->branch_sample_type(), size >= 80 ? PERF_SAMPLE_BRANCH_HW_INDEX | 1 : 0);
    EXPECT_EQ(attr->sample_regs_intr(), size >= 104 ? 3u : 0u);
    EXPECT_EQ(attr->U64(attr_offset::kConfig3), size >= 136 ? 0x55u : 0u);
    if (size == 160) {
      EXPECT_EQ(attr->U64(144), 0xf2u);
    }
  }
}

TEST(AttrTest, FromBytesRefusesLessThanVer0) {
  std::vector<std::byte> bytes = EveryField().Size(PERF_ATTR_SIZE_VER0).Serialize(kNative);
  bytes.pop_back();
  absl::StatusOr<perf::EventAttr> attr = perf::EventAttr::FromBytes(bytes);
  ASSERT_FALSE(attr.ok());
  EXPECT_THAT(attr.status().message(), HasSubstr("63 bytes is smaller than the first ABI"));
}

TEST(AttrTest, FromBytesSetsSizeToTheBytesGiven) {
  std::vector<std::byte> bytes = EveryField().Size(PERF_ATTR_SIZE_VER5).Serialize(kNative);
  base::Store<uint32_t>(bytes.data() + attr_offset::kSize, 0);  // perf reads 0 as VER0
  absl::StatusOr<perf::EventAttr> attr = perf::EventAttr::FromBytes(bytes);
  ASSERT_TRUE(attr.ok());
  EXPECT_EQ(attr->U32(attr_offset::kSize), PERF_ATTR_SIZE_VER5);
}

TEST(AttrTest, WritingPastTheEndGrowsToTheCurrentAbi) {
  absl::StatusOr<perf::EventAttr> attr =
      perf::EventAttr::FromBytes(EveryField().Size(PERF_ATTR_SIZE_VER0).Serialize(kNative));
  ASSERT_TRUE(attr.ok());
  attr->SetU64(attr_offset::kSampleRegsIntr, 0xf);
  EXPECT_EQ(attr->size(), PERF_ATTR_SIZE_VER8);
  EXPECT_EQ(attr->U32(attr_offset::kSize), PERF_ATTR_SIZE_VER8);
  EXPECT_EQ(attr->sample_regs_intr(), 0xfu);
  EXPECT_EQ(attr->config1(), 0x7ffc0000u);
  EXPECT_EQ(attr->config2(), 0u);
  attr->set_sample_type(PERF_SAMPLE_TIME);
  EXPECT_EQ(attr->sample_type(), PERF_SAMPLE_TIME);
}

TEST(AttrTest, ForeignAttrSwapsToNativeAtEverySize) {
  for (uint32_t size : {PERF_ATTR_SIZE_VER0, PERF_ATTR_SIZE_VER1, PERF_ATTR_SIZE_VER2,
                        PERF_ATTR_SIZE_VER3, PERF_ATTR_SIZE_VER4, PERF_ATTR_SIZE_VER5,
                        PERF_ATTR_SIZE_VER6, PERF_ATTR_SIZE_VER7, PERF_ATTR_SIZE_VER8, 160u}) {
    SCOPED_TRACE(size);
    AttrBuilder b = EveryField().Size(size).FutureWords({0xf1, 0xf2, 0xf3});
    std::vector<std::byte> foreign = b.Serialize(kForeign);
    perf::SwapAttrBytes(foreign);
    EXPECT_EQ(foreign, b.Serialize(kNative));
  }
}

TEST(AttrTest, EveryFlagBitSwaps) {
  // Bits 0..37 are defined (disabled .. sigtrap); the rest is __reserved_1.
  for (int bit = 0; bit < 38; ++bit) {
    SCOPED_TRACE(absl::StrCat("flag bit ", bit));
    AttrBuilder b = AttrBuilder().Flags(1ULL << bit);
    std::vector<std::byte> foreign = b.Serialize(kForeign);
    perf::SwapAttrBytes(foreign);
    absl::StatusOr<perf::EventAttr> attr = perf::EventAttr::FromBytes(foreign);
    ASSERT_TRUE(attr.ok());
    EXPECT_EQ(attr->flags(), 1ULL << bit);
  }
}

TEST(AttrTest, PreciseIpSwapsAsATwoBitField) {
  // precise_ip is bits 15-16: a big-endian compiler puts its high bit first.
  for (uint64_t precise : {1, 2, 3}) {
    SCOPED_TRACE(precise);
    AttrBuilder b = AttrBuilder().Flags(precise << 15 | 1ULL << kAttrFlagSampleIdAll);
    std::vector<std::byte> foreign = b.Serialize(kForeign);
    perf::SwapAttrBytes(foreign);
    absl::StatusOr<perf::EventAttr> attr = perf::EventAttr::FromBytes(foreign);
    ASSERT_TRUE(attr.ok());
    EXPECT_EQ((attr->flags() >> 15) & 3, precise);
    EXPECT_TRUE(attr->sample_id_all());
  }
}

TEST(AttrTest, DescribeNamesCommonEvents) {
  EXPECT_EQ(perf::DescribeAttr(AttrBuilder().Type(PERF_TYPE_SOFTWARE).Config(0).Build()),
            "cpu-clock");
  EXPECT_EQ(perf::DescribeAttr(AttrBuilder().Type(PERF_TYPE_SOFTWARE).Config(9).Build()), "dummy");
  EXPECT_EQ(perf::DescribeAttr(AttrBuilder().Type(PERF_TYPE_HARDWARE).Config(0).Build()), "cycles");
  EXPECT_EQ(perf::DescribeAttr(AttrBuilder().Type(PERF_TYPE_TRACEPOINT).Config(312).Build()),
            "tracepoint:312");
  EXPECT_EQ(perf::DescribeAttr(AttrBuilder().Type(PERF_TYPE_SOFTWARE).Config(99).Build()),
            "type 1 config 0x63");
  EXPECT_EQ(perf::DescribeAttr(AttrBuilder().Type(9).Config(0x10).Build()), "type 9 config 0x10");
}

}  // namespace
}  // namespace perftk::testing
