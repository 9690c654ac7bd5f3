// BUILD_ID feature entries: what AppendBuildIdEntry writes, ReadBuildIds
// reads back, at perf's offsets (id at 12, its size at 32, name at 36).
#include <cstring>
#include <string>
#include <vector>

#include "base/bytes.h"
#include "gtest/gtest.h"
#include "perf/features.h"
#include "perftk/perf_abi.h"

namespace perftk {
namespace {

base::BuildId Id(size_t size) {
  std::vector<std::byte> id(size);
  for (size_t i = 0; i < size; ++i) id[i] = std::byte(0xa0 + i);
  return base::BuildId::FromBytes(id);
}

TEST(BuildIdEntry, WrittenAsPerfLaysItOutAndReadBack) {
  perf::FeatureSet features;
  std::vector<std::byte>& section = features[HEADER_BUILD_ID];
  for (size_t size : {8u, 16u, 20u}) {
    perf::BuildIdEntry entry;
    entry.pid = -1;
    entry.misc = PERF_RECORD_MISC_USER;
    entry.build_id = Id(size);
    entry.filename = "/lib/modules/m" + std::to_string(size) + ".ko";
    const size_t start = section.size();
    perf::AppendBuildIdEntry(entry, section);
    const std::byte* p = section.data() + start;
    EXPECT_EQ(base::Load<uint16_t>(p + 6), section.size() - start);
    EXPECT_EQ((section.size() - start - 36) % 64, 0u) << "name padded to 64";
    EXPECT_EQ(std::memcmp(p + 12, entry.build_id.bytes().data(), size), 0);
    EXPECT_EQ(static_cast<uint8_t>(p[32]), size) << "the id's size at offset 32";
    for (size_t i = 12 + size; i < 32; ++i) EXPECT_EQ(p[i], std::byte{0});
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(p + 36)), entry.filename);
  }
  absl::StatusOr<std::vector<perf::BuildIdEntry>> back = perf::ReadBuildIds(features);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const size_t size = std::vector<size_t>{8, 16, 20}[i];
    EXPECT_EQ((*back)[i].build_id, Id(size));
    EXPECT_EQ((*back)[i].pid, -1);
    EXPECT_EQ((*back)[i].misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_BUILD_ID_SIZE);
    EXPECT_EQ((*back)[i].filename, "/lib/modules/m" + std::to_string(size) + ".ko");
  }
}

TEST(BuildIdEntry, AnEntryPastTheSectionIsRefused) {
  perf::FeatureSet features;
  perf::BuildIdEntry entry;
  entry.build_id = Id(20);
  entry.filename = "/bin/x";
  perf::AppendBuildIdEntry(entry, features[HEADER_BUILD_ID]);
  features[HEADER_BUILD_ID].resize(features[HEADER_BUILD_ID].size() - 1);
  EXPECT_FALSE(perf::ReadBuildIds(features).ok());
}

}  // namespace
}  // namespace perftk
