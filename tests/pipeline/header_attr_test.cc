#include "pipeline/header_attr.h"

#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "perf/features.h"

namespace perftk::pipeline {
namespace {

// An EVENT_DESC section as perf writes it: nr, attr_size, then per event the
// attr, nr_ids, the name (u32 length, NUL-padded) and the ids.
std::vector<std::byte> EventDescOf(
    const std::vector<std::pair<perf::EventAttr, std::string>>& events, uint32_t attr_size) {
  std::vector<std::byte> section;
  base::Append(section, static_cast<uint32_t>(events.size()));
  base::Append(section, attr_size);
  uint64_t id = 100;
  for (const auto& [attr, name] : events) {
    const size_t at = section.size();
    section.resize(at + attr_size);
    std::memcpy(section.data() + at, attr.bytes().data(), attr_size);
    base::Append(section, uint32_t{2});
    perf::AppendFeatureString(section, name);
    base::Append(section, id++);
    base::Append(section, id++);
  }
  return section;
}

perf::EventAttr AttrOf(uint64_t sample_type, uint32_t size) {
  perf::EventAttr attr;
  attr.set_sample_type(sample_type);
  attr.SetU32(attr_offset::kSize, size);
  return attr;
}

TEST(RewriteEventDescAttrsTest, ChangesEveryAttrAndNothingElse) {
  const std::vector<std::pair<perf::EventAttr, std::string>> events = {
      {AttrOf(PERF_SAMPLE_IP | PERF_SAMPLE_REGS_USER, PERF_ATTR_SIZE_VER8), "cycles"},
      {AttrOf(PERF_SAMPLE_TID | PERF_SAMPLE_REGS_USER, PERF_ATTR_SIZE_VER8), "instructions"}};
  std::vector<std::byte> section = EventDescOf(events, PERF_ATTR_SIZE_VER8);
  std::vector<std::pair<perf::EventAttr, std::string>> expected_events = events;
  for (auto& [attr, name] : expected_events) {
    attr.set_sample_type(attr.sample_type() & ~uint64_t{PERF_SAMPLE_REGS_USER});
  }
  ASSERT_TRUE(RewriteEventDescAttrs(section, [](perf::EventAttr& attr) {
                attr.set_sample_type(attr.sample_type() & ~uint64_t{PERF_SAMPLE_REGS_USER});
              }).ok());
  EXPECT_EQ(section, EventDescOf(expected_events, PERF_ATTR_SIZE_VER8));
  perf::FeatureSet features;
  features[HEADER_EVENT_DESC] = section;
  absl::StatusOr<std::vector<perf::EventDescEntry>> read = perf::ReadEventDesc(features);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[1].name, "instructions");
}

// A change that writes past an old, short attr grows the EventAttr; the
// section keeps its attr size and each attr its recorded size field.
TEST(RewriteEventDescAttrsTest, AShortAttrKeepsItsSize) {
  perf::EventAttr old_attr = AttrOf(PERF_SAMPLE_IP, PERF_ATTR_SIZE_VER0);
  std::vector<std::byte> section = EventDescOf({{old_attr, "cycles"}}, PERF_ATTR_SIZE_VER0);
  const size_t section_size = section.size();
  ASSERT_TRUE(RewriteEventDescAttrs(section, [](perf::EventAttr& attr) {
                attr.set_sample_type(PERF_SAMPLE_TID);
                attr.SetU64(attr_offset::kSampleRegsUser, 0);  // past VER0: grows it
              }).ok());
  ASSERT_EQ(section.size(), section_size);
  EXPECT_EQ(base::Load<uint32_t>(section.data() + 8 + attr_offset::kSize), PERF_ATTR_SIZE_VER0);
  EXPECT_EQ(base::Load<uint64_t>(section.data() + 8 + attr_offset::kSampleType),
            uint64_t{PERF_SAMPLE_TID});
}

// Names are renamed in their fields: a shorter name takes the old one's
// place, one that would not fit leaves it as it was.
TEST(RewriteEventDescAttrsTest, RenamesNamesThatFitTheirField) {
  const std::vector<std::pair<perf::EventAttr, std::string>> events = {
      {AttrOf(PERF_SAMPLE_IP, PERF_ATTR_SIZE_VER8), "probe_libc:malloc_0x7f12"},
      {AttrOf(PERF_SAMPLE_IP, PERF_ATTR_SIZE_VER8), "cycles"}};
  std::vector<std::byte> section = EventDescOf(events, PERF_ATTR_SIZE_VER8);
  const size_t section_size = section.size();
  ASSERT_TRUE(RewriteEventDesc(
                  section, [](perf::EventAttr&) {},
                  [](const std::string& name) {
                    return name == "cycles" ? name + std::string(80, 'x') : std::string("probe");
                  })
                  .ok());
  EXPECT_EQ(section.size(), section_size);
  perf::FeatureSet features;
  features[HEADER_EVENT_DESC] = section;
  absl::StatusOr<std::vector<perf::EventDescEntry>> read = perf::ReadEventDesc(features);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_EQ(read->size(), 2u);
  EXPECT_EQ((*read)[0].name, "probe");
  EXPECT_EQ((*read)[1].name, "cycles");
}

TEST(RewriteEventDescAttrsTest, MalformedSectionIsRefusedUnchanged) {
  std::vector<std::byte> section =
      EventDescOf({{AttrOf(PERF_SAMPLE_IP, PERF_ATTR_SIZE_VER8), "cycles"}}, PERF_ATTR_SIZE_VER8);
  section.resize(section.size() - 4);  // the last id cut short
  const std::vector<std::byte> before = section;
  absl::Status s =
      RewriteEventDescAttrs(section, [](perf::EventAttr& attr) { attr.set_sample_type(0); });
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss) << s;
  EXPECT_EQ(section, before);
  std::vector<std::byte> tiny(4);
  EXPECT_FALSE(RewriteEventDescAttrs(tiny, [](perf::EventAttr&) {}).ok());
}

}  // namespace
}  // namespace perftk::pipeline
