// The encoders of record_encoders.h and EVENT_DESC against the views that
// read them and against the sections perf wrote in the test recordings.
#include "perf/record_encoders.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "perf/features.h"
#include "perf/reader.h"
#include "perf/record.h"
#include "perftk/perf_abi.h"

namespace perftk {
namespace {

perf::Record View(const std::vector<std::byte>& bytes) { return perf::Record(bytes, 0); }

// perf's recordings: every EVENT_DESC section parses and encodes back to the
// same bytes, attrs, names (with their padded fields) and ids.
TEST(EventDesc, PerfsSectionsEncodeBackToTheSameBytes) {
  int sections = 0;
  for (const char* name : {"cpu_clock.data", "two_events.data", "tracepoint.data", "pipe.data",
                           "callgraph_fp.data", "sample_fields.data"}) {
    absl::StatusOr<std::unique_ptr<perf::PerfDataReader>> reader =
        perf::PerfDataReader::Open(std::string(PERFTK_TEST_DATA_DIR) + "/" + name);
    ASSERT_TRUE(reader.ok()) << reader.status();
    const perf::FeatureSet& features = (*reader)->header().features;
    auto section = features.find(HEADER_EVENT_DESC);
    if (section == features.end()) continue;
    ++sections;
    absl::StatusOr<perf::EventDesc> desc = perf::ParseEventDesc(section->second);
    ASSERT_TRUE(desc.ok()) << name << ": " << desc.status();
    EXPECT_FALSE(desc->entries.empty()) << name;
    EXPECT_EQ(perf::EncodeEventDesc(*desc), section->second) << name;
  }
  EXPECT_GE(sections, 3) << "the recordings have EVENT_DESC sections";
}

TEST(EventDesc, ANewNameKeepsItsFieldOrIsPaddedAsPerfDoes) {
  perf::EventDesc desc;
  desc.attr_size = PERF_ATTR_SIZE_VER0;
  perf::EventDescEntry entry;
  entry.attr.assign(PERF_ATTR_SIZE_VER0, std::byte{0x5a});
  entry.name = "mem:0x0";
  entry.name_size = 16;
  entry.ids = {7, 9};
  desc.entries.push_back(entry);
  entry.name = std::string(70, 'x');  // longer than its field: 71 bytes padded to 128
  desc.entries.push_back(entry);
  std::vector<std::byte> section = perf::EncodeEventDesc(desc);
  EXPECT_EQ(section.size(), 8 + 2 * (PERF_ATTR_SIZE_VER0 + 8 + 16) + 16 + 128);
  absl::StatusOr<perf::EventDesc> back = perf::ParseEventDesc(section);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->entries.size(), 2u);
  EXPECT_EQ(back->entries[0].name, "mem:0x0");
  EXPECT_EQ(back->entries[0].name_size, 16u);
  EXPECT_EQ(back->entries[1].name, std::string(70, 'x'));
  EXPECT_EQ(back->entries[1].name_size, 128u);
  EXPECT_EQ(back->entries[1].ids, (std::vector<uint64_t>{7, 9}));
  EXPECT_EQ(back->entries[1].attr, entry.attr);
  section.pop_back();
  EXPECT_FALSE(perf::ParseEventDesc(section).ok());
}

TEST(RecordEncoders, Mmap2ReadsBackThroughItsView) {
  perf::Mmap2Fields f;
  f.pid = 11, f.tid = 12, f.start = 0x7f0000001000, f.len = 0x2000, f.pgoff = 0x40;
  f.maj = 8, f.min = 3, f.ino = 4242, f.ino_generation = 1, f.prot = 5, f.flags = 1;
  f.filename = "/tmp/jitted-11-3.so";
  std::vector<std::byte> trailer(16, std::byte{0xee});
  absl::StatusOr<std::vector<std::byte>> bytes =
      perf::EncodeMmap2(f, PERF_RECORD_MISC_USER, trailer);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  // 72 fixed bytes, the name and its NUL padded to 8 (24), the trailer.
  EXPECT_EQ(bytes->size(), 72u + 24 + 16);
  absl::StatusOr<perf::Mmap2Record> view = perf::Mmap2Record::From(View(*bytes));
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->record().type(), PERF_RECORD_MMAP2);
  EXPECT_EQ(view->record().misc(), PERF_RECORD_MISC_USER);
  EXPECT_EQ(view->record().size(), bytes->size());
  EXPECT_EQ(view->pid(), 11u);
  EXPECT_EQ(view->tid(), 12u);
  EXPECT_EQ(view->start(), 0x7f0000001000u);
  EXPECT_EQ(view->len(), 0x2000u);
  EXPECT_EQ(view->pgoff(), 0x40u);
  EXPECT_EQ(view->maj(), 8u);
  EXPECT_EQ(view->min(), 3u);
  EXPECT_EQ(view->ino(), 4242u);
  EXPECT_EQ(view->ino_generation(), 1u);
  EXPECT_EQ(view->prot(), 5u);
  EXPECT_EQ(view->flags(), 1u);
  EXPECT_EQ(view->filename(), "/tmp/jitted-11-3.so");
  EXPECT_EQ((*bytes)[bytes->size() - 1], std::byte{0xee});
}

TEST(RecordEncoders, HeaderAttrReadsBackThroughItsView) {
  perf::EventAttr attr;
  attr.set_sample_type(PERF_SAMPLE_IP | PERF_SAMPLE_TID);
  attr.ids() = {101, 102, 103};
  absl::StatusOr<std::vector<std::byte>> bytes = perf::EncodeHeaderAttr(attr);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<perf::HeaderAttrRecord> view = perf::HeaderAttrRecord::From(View(*bytes));
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->record().type(), PERF_RECORD_HEADER_ATTR);
  EXPECT_EQ(view->ids(), attr.ids());
  EXPECT_EQ(std::vector<std::byte>(view->attr_bytes().begin(), view->attr_bytes().end()),
            std::vector<std::byte>(attr.bytes().begin(), attr.bytes().end()));
}

TEST(RecordEncoders, HeaderFeatureAndTracingData) {
  std::vector<std::byte> section = {std::byte{1}, std::byte{2}, std::byte{3}};
  absl::StatusOr<std::vector<std::byte>> feature =
      perf::EncodeHeaderFeature(HEADER_HOSTNAME, section);
  ASSERT_TRUE(feature.ok()) << feature.status();
  absl::StatusOr<perf::HeaderFeatureRecord> view = perf::HeaderFeatureRecord::From(View(*feature));
  ASSERT_TRUE(view.ok()) << view.status();
  EXPECT_EQ(view->feature(), static_cast<uint64_t>(HEADER_HOSTNAME));
  EXPECT_EQ(std::vector<std::byte>(view->data().begin(), view->data().end()), section);

  std::vector<std::byte> data(13, std::byte{7});
  absl::StatusOr<std::vector<std::byte>> tracing = perf::EncodeHeaderTracingData(data);
  ASSERT_TRUE(tracing.ok()) << tracing.status();
  EXPECT_EQ(data.size(), 16u) << "the payload is padded to 8 bytes";
  EXPECT_EQ(data[13], std::byte{0});
  ASSERT_EQ(tracing->size(), 16u);
  EXPECT_EQ(perf::Record(*tracing, 0).type(), PERF_RECORD_HEADER_TRACING_DATA);
  EXPECT_EQ(base::Load<uint32_t>(tracing->data() + 8), 16u) << "the padded payload's size";

  std::vector<std::byte> large(0x10000);
  EXPECT_FALSE(perf::EncodeHeaderFeature(HEADER_CMDLINE, large).ok()) << "past the 16-bit size";
}

TEST(RecordEncoders, EventUpdateNameReadsBackThroughItsView) {
  for (const std::string name : {"", "cycles", "mem:0x0:rw"}) {
    absl::StatusOr<std::vector<std::byte>> bytes = perf::EncodeEventUpdateName(77, name);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_EQ(bytes->size() % 8, 0u);
    EXPECT_GT(bytes->size(), 24 + name.size()) << "NUL-terminated";
    absl::StatusOr<perf::EventUpdateRecord> view = perf::EventUpdateRecord::From(View(*bytes));
    ASSERT_TRUE(view.ok()) << view.status();
    EXPECT_EQ(view->update_type(), perf::EventUpdateRecord::kName);
    EXPECT_EQ(view->id(), 77u);
    EXPECT_EQ(view->text(), name);
  }
}

// A CALLCHAIN_DEFERRED record's bytes: header, cookie, nr, the ips, then a
// sample_id trailer of `trailer` bytes.
std::vector<std::byte> DeferredCallchain(uint64_t nr, const std::vector<uint64_t>& ips,
                                         size_t trailer) {
  std::vector<std::byte> bytes(24 + 8 * ips.size() + trailer, std::byte{0x5a});
  const uint16_t size = static_cast<uint16_t>(bytes.size());
  const uint32_t type = PERF_RECORD_CALLCHAIN_DEFERRED;
  std::memcpy(bytes.data(), &type, 4);
  std::memset(bytes.data() + 4, 0, 2);
  std::memcpy(bytes.data() + 6, &size, 2);
  const uint64_t cookie = 77;
  std::memcpy(bytes.data() + 8, &cookie, 8);
  std::memcpy(bytes.data() + 16, &nr, 8);
  for (size_t i = 0; i < ips.size(); ++i) std::memcpy(bytes.data() + 24 + 8 * i, &ips[i], 8);
  return bytes;
}

uint64_t IpAt(const std::vector<std::byte>& bytes, size_t i) {
  uint64_t ip;
  std::memcpy(&ip, bytes.data() + 24 + 8 * i, 8);
  return ip;
}

TEST(MapDeferredCallchainIps, MapsIpsKeepsContextMarkersAndTheTrailer) {
  std::vector<std::byte> bytes =
      DeferredCallchain(3, {PERF_CONTEXT_USER, 0x401000, 0x7f0000001234}, 16);
  const std::vector<std::byte> before = bytes;
  ASSERT_TRUE(perf::MapDeferredCallchainIps(bytes, 16, [](uint64_t ip) { return ip + 0x10; }).ok());
  EXPECT_EQ(IpAt(bytes, 0), PERF_CONTEXT_USER);
  EXPECT_EQ(IpAt(bytes, 1), 0x401010u);
  EXPECT_EQ(IpAt(bytes, 2), 0x7f0000001244u);
  EXPECT_TRUE(std::equal(bytes.end() - 16, bytes.end(), before.end() - 16));
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.begin() + 24, before.begin()));
}

TEST(MapDeferredCallchainIps, BadLayoutsAreErrorsAndChangeNothing) {
  auto map = [](uint64_t) { return uint64_t{0}; };
  // nr says 3 ips where 2 fit before the trailer.
  std::vector<std::byte> bytes = DeferredCallchain(3, {0x1000, 0x2000}, 8);
  std::vector<std::byte> before = bytes;
  EXPECT_EQ(perf::MapDeferredCallchainIps(bytes, 8, map).message(), "nr runs past the record");
  EXPECT_EQ(bytes, before);
  // Shorter than the fixed part and its trailer (no room may underflow).
  bytes = DeferredCallchain(0, {}, 8);
  bytes.resize(28);
  before = bytes;
  EXPECT_EQ(perf::MapDeferredCallchainIps(bytes, 8, map).message(), "shorter than its layout");
  EXPECT_EQ(bytes, before);
  bytes.resize(16);
  EXPECT_FALSE(perf::MapDeferredCallchainIps(bytes, 0, map).ok());
}

}  // namespace
}  // namespace perftk
