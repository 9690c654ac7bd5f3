#include "perf/ordered_reader.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perf/input.h"
#include "perf/reader.h"
#include "perftk/perf_abi.h"

namespace perftk::testing {
namespace {

using ::testing::ElementsAreArray;

constexpr int kRound = -1;  // stands for a FINISHED_ROUND in the sequences below

AttrBuilder TimedAttr() {
  return AttrBuilder()
      .Type(PERF_TYPE_SOFTWARE)
      .SampleType(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
      .SampleIdAll();
}

// One input item: a sample at `time` whose pid is `id`, or a FINISHED_ROUND.
struct Item {
  uint64_t time = 0;
  int id = kRound;
};

// How the records reach the OrderedReader: as views of the mapped input
// (queued without a copy), each copied out of a byte-swapped input, or a mix
// (runs of records in COMPRESSED records are decompressed into the reader's
// buffer and copied; the others are views).
enum class Layout { kMapped, kSwapped, kMixed };

RecordBuilder SampleFor(const Item& item) {
  perf::Sample s;
  s.ip = 0x400000 + static_cast<uint64_t>(item.id);
  s.pid = static_cast<uint32_t>(item.id);
  s.tid = static_cast<uint32_t>(item.id);
  s.time = item.time;
  return MakeSample(TimedAttr(), s);
}

std::vector<std::byte> Recording(const std::vector<Item>& items, Layout layout) {
  PerfDataBuilder b;
  b.Attr(TimedAttr());
  std::vector<std::byte> squeezed;  // records waiting to go into one COMPRESSED
  auto flush = [&]() {
    if (squeezed.empty()) return;
    b.Record(MakeCompressed(Compress(squeezed)));
    squeezed.clear();
  };
  for (const Item& item : items) {
    if (item.id == kRound) {
      flush();
      b.Record(RecordBuilder(PERF_RECORD_FINISHED_ROUND));
      continue;
    }
    RecordBuilder sample = SampleFor(item);
    // Every third id starts or extends a compressed run in the mixed layout.
    if (layout == Layout::kMixed && item.id % 3 != 0) {
      std::vector<std::byte> one = sample.Build();
      squeezed.insert(squeezed.end(), one.begin(), one.end());
      continue;
    }
    flush();
    b.Record(sample);
  }
  flush();
  return b.BuildFile(layout == Layout::kSwapped ? kForeign : kNative).bytes;
}

bool Inside(base::Bytes part, const std::vector<std::byte>& buffer) {
  const auto at = reinterpret_cast<uintptr_t>(part.data());
  const auto begin = reinterpret_cast<uintptr_t>(buffer.data());
  return at >= begin && at + part.size() <= begin + buffer.size();
}

// What OrderedReader hands out: sample ids and kRound, after checking that
// every sample's bytes are the ones recorded for its id, and that a record
// of the mapped input is handed out as a view of it (the reader kept no
// copy) while a byte-swapped one is not.
std::vector<int> ReadOrdered(const std::vector<Item>& items, size_t max_queued_bytes,
                             Layout layout = Layout::kMapped) {
  std::vector<std::byte> bytes = Recording(items, layout);
  auto reader = perf::PerfDataReader::FromInput(perf::Input::FromMemory(bytes, "test"));
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return {};
  perf::OrderedReader ordered(**reader, max_queued_bytes);
  std::vector<int> out;
  while (true) {
    absl::StatusOr<std::optional<perf::Record>> record = ordered.Next();
    EXPECT_TRUE(record.ok()) << record.status();
    if (!record.ok() || !*record) break;
    const perf::Record& r = **record;
    if (r.type() == PERF_RECORD_FINISHED_ROUND) {
      out.push_back(kRound);
      continue;
    }
    EXPECT_EQ(r.type(), PERF_RECORD_SAMPLE);
    absl::StatusOr<perf::Sample> s = perf::DecodeSample(TimedAttr().Format(), r.body());
    EXPECT_TRUE(s.ok()) << s.status();
    if (!s.ok()) break;
    const int id = static_cast<int>(s->pid);
    const auto item =
        std::find_if(items.begin(), items.end(), [id](const Item& i) { return i.id == id; });
    EXPECT_NE(item, items.end()) << "sample " << id << " was never recorded";
    if (item == items.end()) break;
    const std::vector<std::byte> expected = SampleFor(*item).Build();
    EXPECT_TRUE(std::equal(r.bytes().begin(), r.bytes().end(), expected.begin(), expected.end()))
        << "sample " << id << " differs from the record written for it";
    const bool compressed = layout == Layout::kMixed && id % 3 != 0;
    if (layout == Layout::kSwapped || compressed) {
      EXPECT_FALSE(Inside(r.bytes(), bytes)) << "sample " << id;
    } else {
      EXPECT_TRUE(Inside(r.bytes(), bytes)) << "sample " << id << " was copied";
      EXPECT_EQ(r.bytes().data(), bytes.data() + r.file_offset()) << "sample " << id;
    }
    out.push_back(id);
  }
  return out;
}

// The rule as the header states it, written the plain way: a queue sorted
// by (time, arrival) at each release.
std::vector<int> Model(const std::vector<Item>& items, size_t max_queued_records) {
  std::vector<Item> queue;  // in arrival order
  std::vector<int> out;
  uint64_t max_time = 0, release_limit = 0;
  auto release = [&](uint64_t limit) {
    std::stable_sort(queue.begin(), queue.end(),
                     [](const Item& a, const Item& b) { return a.time < b.time; });
    auto end =
        std::find_if(queue.begin(), queue.end(), [limit](const Item& i) { return i.time > limit; });
    for (auto it = queue.begin(); it != end; ++it) out.push_back(it->id);
    queue.erase(queue.begin(), end);
  };
  for (const Item& item : items) {
    if (item.id == kRound) {
      release(release_limit);
      release_limit = max_time;
      out.push_back(kRound);
      continue;
    }
    max_time = std::max(max_time, item.time);
    queue.push_back(item);
    if (queue.size() > max_queued_records) {
      const size_t target = queue.size() / 2;
      while (queue.size() > target) {
        release(std::min_element(queue.begin(), queue.end(), [](const Item& a, const Item& b) {
                  return a.time < b.time;
                })->time);
      }
    }
  }
  release(UINT64_MAX);
  return out;
}

size_t SampleRecordSize() {
  perf::Sample s;
  return MakeSample(TimedAttr(), s).size();
}

TEST(OrderedReaderTest, RecordsInOrderComeOutAsTheyWereRead) {
  std::vector<Item> items = {{10, 1}, {20, 2}, {30, 3},     {0, kRound},
                             {40, 4}, {50, 5}, {0, kRound}, {60, 6}};
  // A round's records wait for the next round: nothing may come later that
  // is older than the round before the previous one.
  EXPECT_THAT(ReadOrdered(items, perf::OrderedReader::kDefaultMaxQueuedBytes),
              ElementsAreArray({kRound, 1, 2, 3, kRound, 4, 5, 6}));
}

TEST(OrderedReaderTest, RunsOfOneRoundAreMergedByTime) {
  // Two CPU buffers per round, each in order, written one after the other.
  std::vector<Item> items = {{1, 1},      {3, 3}, {5, 5}, {2, 2}, {4, 4},     {6, 6},
                             {0, kRound}, {7, 7}, {9, 9}, {8, 8}, {0, kRound}};
  EXPECT_THAT(ReadOrdered(items, perf::OrderedReader::kDefaultMaxQueuedBytes),
              ElementsAreArray({kRound, 1, 2, 3, 4, 5, 6, kRound, 7, 8, 9}));
}

TEST(OrderedReaderTest, RecordsOfEqualTimeKeepTheirReadingOrder) {
  std::vector<Item> items = {{5, 1}, {3, 2},      {5, 3}, {5, 4},     {1, 5},
                             {5, 6}, {0, kRound}, {5, 7}, {0, kRound}};
  EXPECT_THAT(ReadOrdered(items, perf::OrderedReader::kDefaultMaxQueuedBytes),
              ElementsAreArray({kRound, 5, 2, 1, 3, 4, 6, 7, kRound}));
}

TEST(OrderedReaderTest, RecordsOlderThanTheReleasedOnesStillComeOutOldestFirst) {
  // 2 arrives after 4 was handed out (a broken recording): it is not lost.
  std::vector<Item> items = {{4, 4}, {0, kRound}, {6, 6}, {0, kRound}, {2, 2}, {3, 3}, {0, kRound}};
  EXPECT_THAT(ReadOrdered(items, perf::OrderedReader::kDefaultMaxQueuedBytes),
              ElementsAreArray({kRound, 4, kRound, 2, 3, 6, kRound}));
}

TEST(OrderedReaderTest, MatchesThePlainRuleOnRandomRecordings) {
  std::mt19937 random(13);
  const size_t record_size = SampleRecordSize();
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<Item> items;
    const int cpus = 1 + static_cast<int>(random() % 4);
    const int rounds = 1 + static_cast<int>(random() % 6);
    int id = 1;
    uint64_t base = 100;
    for (int round = 0; round < rounds; ++round) {
      // Each CPU writes its own run in order; runs overlap in time, and
      // now and then a time repeats or a record is older than its run.
      for (int cpu = 0; cpu < cpus; ++cpu) {
        uint64_t t = base + random() % 20;
        const int n = static_cast<int>(random() % 12);
        for (int i = 0; i < n; ++i) {
          if (random() % 10 == 0) t -= std::min<uint64_t>(t, random() % 30);
          items.push_back(Item{t, id++});
          t += random() % 4;
        }
      }
      base += 15;
      if (random() % 5 != 0) items.push_back(Item{0, kRound});
    }
    // Sometimes a cap small enough that records are handed out early.
    const size_t cap_records = random() % 3 == 0 ? 2 + random() % 10 : SIZE_MAX / record_size;
    const size_t cap_bytes = cap_records * record_size;
    const std::vector<int> expected = Model(items, cap_records);
    for (Layout layout : {Layout::kMapped, Layout::kSwapped, Layout::kMixed}) {
      ASSERT_THAT(ReadOrdered(items, cap_bytes, layout), ElementsAreArray(expected))
          << "trial " << trial << ", layout " << static_cast<int>(layout);
    }
  }
}

}  // namespace
}  // namespace perftk::testing
