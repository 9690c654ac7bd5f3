// The typed views of the record types tools read less often: each reads its
// fields back, refuses a record shorter than its layout, and the counted ones
// refuse a count their record cannot hold.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "perf/record.h"

namespace perftk {
namespace {

struct Built {
  std::vector<std::byte> bytes;
  perf::Record record() const { return perf::Record(bytes, 0x40); }
};

Built Make(uint32_t type, const std::vector<std::byte>& body, uint16_t misc = 0) {
  absl::StatusOr<std::vector<std::byte>> bytes = perf::MakeRecordBytes(type, misc, body);
  EXPECT_TRUE(bytes.ok());
  return Built{*bytes};
}

std::vector<std::byte> U64s(std::initializer_list<uint64_t> values) {
  std::vector<std::byte> out;
  for (uint64_t v : values) base::Append(out, v);
  return out;
}

void AppendText(std::vector<std::byte>& out, const std::string& text, size_t size) {
  std::vector<std::byte> padded(size);
  std::memcpy(padded.data(), text.data(), std::min(text.size(), size));
  base::AppendBytes(out, padded);
}

// A copy of `built` one byte shorter (header size adjusted).
Built Shorter(const Built& built) {
  Built cut{std::vector<std::byte>(built.bytes.begin(), built.bytes.end() - 1)};
  base::Store<uint16_t>(cut.bytes.data() + 6, static_cast<uint16_t>(cut.bytes.size()));
  return cut;
}

template <typename View>
void ExpectRefusesShorter(const Built& built) {
  EXPECT_TRUE(View::From(built.record()).ok());
  absl::StatusOr<View> short_view = View::From(Shorter(built).record());
  EXPECT_FALSE(short_view.ok());
}

TEST(RecordViewsTest, LostThrottleAndLostSamples) {
  Built lost = Make(PERF_RECORD_LOST, U64s({7, 99}));
  EXPECT_EQ(perf::LostRecord::From(lost.record())->id(), 7u);
  EXPECT_EQ(perf::LostRecord::From(lost.record())->lost(), 99u);
  ExpectRefusesShorter<perf::LostRecord>(lost);

  Built throttle = Make(PERF_RECORD_THROTTLE, U64s({1000, 7, 8}));
  absl::StatusOr<perf::ThrottleRecord> t = perf::ThrottleRecord::From(throttle.record());
  EXPECT_EQ(t->time(), 1000u);
  EXPECT_EQ(t->id(), 7u);
  EXPECT_EQ(t->stream_id(), 8u);
  ExpectRefusesShorter<perf::ThrottleRecord>(throttle);

  Built lost_samples = Make(PERF_RECORD_LOST_SAMPLES, U64s({12}));
  EXPECT_EQ(perf::LostSamplesRecord::From(lost_samples.record())->lost(), 12u);
  ExpectRefusesShorter<perf::LostSamplesRecord>(lost_samples);
}

TEST(RecordViewsTest, ReadAndItraceStart) {
  std::vector<std::byte> body;
  base::Append(body, uint32_t{5});
  base::Append(body, uint32_t{6});
  base::AppendBytes(body, U64s({123}));
  Built read = Make(PERF_RECORD_READ, body);
  absl::StatusOr<perf::ReadRecord> r = perf::ReadRecord::From(read.record());
  EXPECT_EQ(r->pid(), 5u);
  EXPECT_EQ(r->tid(), 6u);
  EXPECT_EQ(base::Load<uint64_t>(r->values().data()), 123u);
  ExpectRefusesShorter<perf::ReadRecord>(read);

  body.resize(8);
  Built itrace = Make(PERF_RECORD_ITRACE_START, body);
  EXPECT_EQ(perf::ItraceStartRecord::From(itrace.record())->tid(), 6u);
  ExpectRefusesShorter<perf::ItraceStartRecord>(itrace);
}

TEST(RecordViewsTest, NamespacesCountIsChecked) {
  std::vector<std::byte> body;
  base::Append(body, uint32_t{5});
  base::Append(body, uint32_t{6});
  base::AppendBytes(body, U64s({2, 0x10, 0x20, 0x30, 0x40}));
  Built ns = Make(PERF_RECORD_NAMESPACES, body);
  absl::StatusOr<perf::NamespacesRecord> n = perf::NamespacesRecord::From(ns.record());
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->nr_namespaces(), 2u);
  EXPECT_EQ(n->entry(1).dev, 0x30u);
  EXPECT_EQ(n->entry(1).inode, 0x40u);
  base::Store<uint64_t>(ns.bytes.data() + 16, 3);
  EXPECT_FALSE(perf::NamespacesRecord::From(ns.record()).ok());
}

TEST(RecordViewsTest, BpfEventCgroupAndAuxOutputHwId) {
  std::vector<std::byte> body;
  base::Append(body, uint16_t{1});
  base::Append(body, uint16_t{0});
  base::Append(body, uint32_t{77});
  AppendText(body, "tagtagta", 8);
  Built bpf = Make(PERF_RECORD_BPF_EVENT, body);
  absl::StatusOr<perf::BpfEventRecord> b = perf::BpfEventRecord::From(bpf.record());
  EXPECT_EQ(b->bpf_event_type(), 1u);
  EXPECT_EQ(b->id(), 77u);
  EXPECT_EQ(b->tag().size(), 8u);
  ExpectRefusesShorter<perf::BpfEventRecord>(bpf);

  std::vector<std::byte> cg = U64s({9});
  AppendText(cg, "/user.slice", 16);
  Built cgroup = Make(PERF_RECORD_CGROUP, cg);
  EXPECT_EQ(perf::CgroupRecord::From(cgroup.record())->id(), 9u);
  EXPECT_EQ(perf::CgroupRecord::From(cgroup.record())->path(), "/user.slice");

  Built hw = Make(PERF_RECORD_AUX_OUTPUT_HW_ID, U64s({0x10}));
  EXPECT_EQ(perf::AuxOutputHwIdRecord::From(hw.record())->hw_id(), 0x10u);
  ExpectRefusesShorter<perf::AuxOutputHwIdRecord>(hw);
}

TEST(RecordViewsTest, DeferredCallchainCountIsChecked) {
  Built chain = Make(PERF_RECORD_CALLCHAIN_DEFERRED, U64s({0xc00c1e, 2, 0x401000, 0x402000}));
  absl::StatusOr<perf::CallchainDeferredRecord> c =
      perf::CallchainDeferredRecord::From(chain.record());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->cookie(), 0xc00c1eu);
  EXPECT_EQ(c->ip(1), 0x402000u);
  base::Store<uint64_t>(chain.bytes.data() + 16, uint64_t{1} << 60);
  EXPECT_FALSE(perf::CallchainDeferredRecord::From(chain.record()).ok());
}

TEST(RecordViewsTest, HeaderBuildIdWithAndWithoutItsSize) {
  std::vector<std::byte> body;
  base::Append(body, int32_t{-1});
  for (int i = 0; i < 20; ++i) base::Append(body, static_cast<uint8_t>(i));
  base::Append(body, uint8_t{8});  // size, when misc says so
  AppendText(body, "", 3);
  AppendText(body, "/usr/lib/libc.so.6", 24);
  Built plain = Make(PERF_RECORD_HEADER_BUILD_ID, body);
  absl::StatusOr<perf::HeaderBuildIdRecord> p = perf::HeaderBuildIdRecord::From(plain.record());
  EXPECT_EQ(p->pid(), -1);
  EXPECT_EQ(p->build_id().size(), 20u);
  EXPECT_EQ(p->filename(), "/usr/lib/libc.so.6");
  Built sized = Make(PERF_RECORD_HEADER_BUILD_ID, body, PERF_RECORD_MISC_BUILD_ID_SIZE);
  EXPECT_EQ(perf::HeaderBuildIdRecord::From(sized.record())->build_id().size(), 8u);
}

TEST(RecordViewsTest, AuxtraceErrorAndTimeConv) {
  std::vector<std::byte> body;
  for (uint32_t v : {1u, 2u, 3u, 4u, 5u, 1u}) base::Append(body, v);
  base::AppendBytes(body, U64s({0xdead, 0xbeef}));
  AppendText(body, "decoder lost sync", 64);
  Built error = Make(PERF_RECORD_AUXTRACE_ERROR, body);
  absl::StatusOr<perf::AuxtraceErrorRecord> e = perf::AuxtraceErrorRecord::From(error.record());
  EXPECT_EQ(e->cpu(), 3u);
  EXPECT_EQ(e->ip(), 0xdeadu);
  EXPECT_EQ(e->message(), "decoder lost sync");
  ExpectRefusesShorter<perf::AuxtraceErrorRecord>(error);

  Built old_conv = Make(PERF_RECORD_TIME_CONV, U64s({10, 20, 30}));
  EXPECT_EQ(perf::TimeConvRecord::From(old_conv.record())->time_mult(), 20u);
  EXPECT_EQ(perf::TimeConvRecord::From(old_conv.record())->time_mask(), 0u);
  Built conv = Make(PERF_RECORD_TIME_CONV, U64s({10, 20, 30, 40, 50, 0}));
  EXPECT_EQ(perf::TimeConvRecord::From(conv.record())->time_cycles(), 40u);
  EXPECT_EQ(perf::TimeConvRecord::From(conv.record())->time_mask(), 50u);
  ExpectRefusesShorter<perf::TimeConvRecord>(old_conv);
}

TEST(RecordViewsTest, IdIndexAndThreadMapCountsAreChecked) {
  Built index = Make(PERF_RECORD_ID_INDEX, U64s({2, 11, 0, 0, 100, 12, 1, 1, 101}));
  absl::StatusOr<perf::IdIndexRecord> i = perf::IdIndexRecord::From(index.record());
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(i->entry(1).id, 12u);
  EXPECT_EQ(i->entry(1).tid, 101u);
  base::Store<uint64_t>(index.bytes.data() + 8, 3);
  EXPECT_FALSE(perf::IdIndexRecord::From(index.record()).ok());

  std::vector<std::byte> body = U64s({1, 4242});
  AppendText(body, "worker", 16);
  Built threads = Make(PERF_RECORD_THREAD_MAP, body);
  absl::StatusOr<perf::ThreadMapRecord> t = perf::ThreadMapRecord::From(threads.record());
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->pid(0), 4242u);
  EXPECT_EQ(t->comm(0), "worker");
  base::Store<uint64_t>(threads.bytes.data() + 8, 2);
  EXPECT_FALSE(perf::ThreadMapRecord::From(threads.record()).ok());
}

TEST(RecordViewsTest, StatEventUpdateAndCompressed) {
  std::vector<std::byte> body = U64s({7});
  base::Append(body, uint32_t{1});
  base::Append(body, uint32_t{2});
  base::AppendBytes(body, U64s({100, 200, 300}));
  Built stat = Make(PERF_RECORD_STAT, body);
  absl::StatusOr<perf::StatRecord> s = perf::StatRecord::From(stat.record());
  EXPECT_EQ(s->thread(), 2u);
  EXPECT_EQ(s->run(), 300u);
  ExpectRefusesShorter<perf::StatRecord>(stat);
  Built round = Make(PERF_RECORD_STAT_ROUND, U64s({1, 5000}));
  EXPECT_EQ(perf::StatRoundRecord::From(round.record())->time(), 5000u);

  std::vector<std::byte> update = U64s({perf::EventUpdateRecord::kName, 7});
  AppendText(update, "cycles:u", 16);
  Built name = Make(PERF_RECORD_EVENT_UPDATE, update);
  absl::StatusOr<perf::EventUpdateRecord> u = perf::EventUpdateRecord::From(name.record());
  EXPECT_EQ(u->update_type(), perf::EventUpdateRecord::kName);
  EXPECT_EQ(u->text(), "cycles:u");

  Built c2 = Make(PERF_RECORD_COMPRESSED2, U64s({5, 0x1111111111}));
  absl::StatusOr<perf::CompressedRecord> c = perf::CompressedRecord::From(c2.record());
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->data().size(), 5u);
  base::Store<uint64_t>(c2.bytes.data() + 8, 9);
  EXPECT_FALSE(perf::CompressedRecord::From(c2.record()).ok());
  Built c1 = Make(PERF_RECORD_COMPRESSED, U64s({1, 2}));
  EXPECT_EQ(perf::CompressedRecord::From(c1.record())->data().size(), 16u);
}

}  // namespace
}  // namespace perftk
