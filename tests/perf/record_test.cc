#include "perf/record.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "perf/header.h"
#include "perf/swap.h"
#include "perftk/perf_abi.h"

namespace perftk::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Keeps built bytes alive for the Record views made over them.
class RecordViewTest : public ::testing::Test {
 protected:
  perftk::perf::Record Make(const RecordBuilder& builder) {
    kept_.push_back(builder.Build());
    return perftk::perf::Record(kept_.back(), 0x100, builder.trailing_payload());
  }
  perftk::perf::Record Cut(const RecordBuilder& builder, size_t size) {
    std::vector<std::byte> bytes = builder.Build();
    bytes.resize(size);
    base::Store<uint16_t>(bytes.data() + 6, static_cast<uint16_t>(size));
    kept_.push_back(std::move(bytes));
    return perftk::perf::Record(kept_.back(), 0);
  }
  std::deque<std::vector<std::byte>> kept_;
};

TEST_F(RecordViewTest, HeaderFields) {
  perftk::perf::Record r =
      Make(RecordBuilder(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_EXACT_IP)
               .U64(1));
  EXPECT_EQ(r.type(), PERF_RECORD_SAMPLE);
  EXPECT_EQ(r.misc(), PERF_RECORD_MISC_KERNEL | PERF_RECORD_MISC_EXACT_IP);
  EXPECT_EQ(r.cpumode(), PERF_RECORD_MISC_KERNEL);
  EXPECT_EQ(r.size(), 16);
  EXPECT_EQ(r.body().size(), 8u);
  EXPECT_EQ(r.file_offset(), 0x100u);
  EXPECT_FALSE(r.is_header_record());
}

TEST_F(RecordViewTest, Mmap) {
  perftk::perf::Record r = Make(MakeMmap({.pid = 10,
                                          .tid = 11,
                                          .start = 0x400000,
                                          .len = 0x2000,
                                          .pgoff = 0x1000,
                                          .filename = "/bin/ls"}));
  absl::StatusOr<perf::MmapRecord> m = perf::MmapRecord::From(r);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->pid(), 10u);
  EXPECT_EQ(m->tid(), 11u);
  EXPECT_EQ(m->start(), 0x400000u);
  EXPECT_EQ(m->len(), 0x2000u);
  EXPECT_EQ(m->pgoff(), 0x1000u);
  EXPECT_EQ(m->filename(), "/bin/ls");
}

TEST_F(RecordViewTest, Mmap2WithInodeAndWithBuildId) {
  perftk::perf::Record r = Make(MakeMmap2({.pid = 1,
                                           .tid = 2,
                                           .start = 0x7f00,
                                           .len = 0x100,
                                           .pgoff = 0x10,
                                           .maj = 8,
                                           .min = 3,
                                           .ino = 0xabcdef,
                                           .ino_generation = 9,
                                           .prot = 5,
                                           .flags = 2,
                                           .filename = "/lib/libc.so.6"}));
  absl::StatusOr<perf::Mmap2Record> m = perf::Mmap2Record::From(r);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_FALSE(m->has_build_id());
  EXPECT_EQ(m->pid(), 1u);
  EXPECT_EQ(m->tid(), 2u);
  EXPECT_EQ(m->start(), 0x7f00u);
  EXPECT_EQ(m->len(), 0x100u);
  EXPECT_EQ(m->pgoff(), 0x10u);
  EXPECT_EQ(m->maj(), 8u);
  EXPECT_EQ(m->min(), 3u);
  EXPECT_EQ(m->ino(), 0xabcdefu);
  EXPECT_EQ(m->ino_generation(), 9u);
  EXPECT_EQ(m->prot(), 5u);
  EXPECT_EQ(m->flags(), 2u);
  EXPECT_EQ(m->filename(), "/lib/libc.so.6");

  r = Make(MakeMmap2({.pid = 1,
                      .tid = 2,
                      .start = 0x7f00,
                      .len = 0x100,
                      .pgoff = 0,
                      .build_id = {0xaa, 0xbb, 0xcc, 0xdd, 0xee},
                      .prot = 7,
                      .flags = 1,
                      .filename = "/lib/x.so"}));
  m = perf::Mmap2Record::From(r);
  ASSERT_TRUE(m.ok());
  EXPECT_TRUE(m->has_build_id());
  EXPECT_EQ(m->build_id().size(), 5u);
  EXPECT_EQ(m->build_id()[0], std::byte{0xaa});
  EXPECT_EQ(m->build_id()[4], std::byte{0xee});
  EXPECT_EQ(m->prot(), 7u);
  EXPECT_EQ(m->flags(), 1u);
  EXPECT_EQ(m->filename(), "/lib/x.so");
}

TEST_F(RecordViewTest, Mmap2BuildIdSizeIsCappedAt20) {
  RecordBuilder b = MakeMmap2({.build_id = std::vector<uint8_t>(20, 0x11), .filename = "f"});
  std::vector<std::byte> bytes = b.Build();
  bytes[40] = std::byte{200};  // a corrupt size byte
  perftk::perf::Record r(bytes, 0);
  absl::StatusOr<perf::Mmap2Record> m = perf::Mmap2Record::From(r);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->build_id().size(), 20u);
}

TEST_F(RecordViewTest, CommForkExit) {
  absl::StatusOr<perf::CommRecord> c =
      perf::CommRecord::From(Make(MakeComm(7, 8, "bash", /*exec=*/true)));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->pid(), 7u);
  EXPECT_EQ(c->tid(), 8u);
  EXPECT_TRUE(c->is_exec());
  EXPECT_EQ(c->comm(), "bash");
  c = perf::CommRecord::From(Make(MakeComm(7, 9, "worker-thread")));
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->is_exec());
  EXPECT_EQ(c->comm(), "worker-thread");

  for (const RecordBuilder& b :
       {MakeFork({.pid = 5, .ppid = 4, .tid = 6, .ptid = 3, .time = 99}),
        MakeExit({.pid = 5, .ppid = 4, .tid = 6, .ptid = 3, .time = 99})}) {
    absl::StatusOr<perf::ForkRecord> f = perf::ForkRecord::From(Make(b));
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(f->pid(), 5u);
    EXPECT_EQ(f->ppid(), 4u);
    EXPECT_EQ(f->tid(), 6u);
    EXPECT_EQ(f->ptid(), 3u);
    EXPECT_EQ(f->time(), 99u);
  }
}

TEST_F(RecordViewTest, KsymbolTextPokeAux) {
  absl::StatusOr<perf::KsymbolRecord> k = perf::KsymbolRecord::From(Make(MakeKsymbol(
      {.addr = 0xffffffffc0000000, .len = 64, .ksym_type = 1, .flags = 1, .name = "bpf_prog_x"})));
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(k->addr(), 0xffffffffc0000000u);
  EXPECT_EQ(k->len(), 64u);
  EXPECT_EQ(k->ksym_type(), 1);
  EXPECT_EQ(k->flags(), 1);
  EXPECT_EQ(k->name(), "bpf_prog_x");

  absl::StatusOr<perf::TextPokeRecord> t = perf::TextPokeRecord::From(
      Make(MakeTextPoke(0xffffffff81000000, ToBytes({1, 2, 3}), ToBytes({4, 5, 6, 7, 8}))));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->addr(), 0xffffffff81000000u);
  EXPECT_EQ(t->old_len(), 3);
  EXPECT_EQ(t->new_len(), 5);

  absl::StatusOr<perf::AuxRecord> a = perf::AuxRecord::From(Make(MakeAux(0x100, 0x200, 3)));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->aux_offset(), 0x100u);
  EXPECT_EQ(a->aux_size(), 0x200u);
  EXPECT_EQ(a->flags(), 3u);
}

TEST_F(RecordViewTest, AuxtraceAndInfo) {
  RecordBuilder b =
      MakeAuxtrace({.offset = 0x40, .reference = 0x77, .idx = 2, .tid = 300, .cpu = 4},
                   ToBytes({1, 2, 3, 4, 5, 6, 7, 8}));
  perftk::perf::Record r = Make(b);
  absl::StatusOr<perf::AuxtraceRecord> a = perf::AuxtraceRecord::From(r);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->payload_size(), 8u);
  EXPECT_EQ(a->offset(), 0x40u);
  EXPECT_EQ(a->reference(), 0x77u);
  EXPECT_EQ(a->idx(), 2u);
  EXPECT_EQ(a->tid(), 300u);
  EXPECT_EQ(a->cpu(), 4u);
  EXPECT_EQ(r.trailing_payload().size(), 8u);

  absl::StatusOr<perf::AuxtraceInfoRecord> i =
      perf::AuxtraceInfoRecord::From(Make(MakeAuxtraceInfo(3, {7, 8, 9})));
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(i->auxtrace_type(), 3u);
  EXPECT_THAT(i->priv(), ElementsAre(7, 8, 9));
}

TEST_F(RecordViewTest, HeaderAttrAndFeature) {
  AttrBuilder attr = AttrBuilder()
                         .Type(PERF_TYPE_SOFTWARE)
                         .Config(0)
                         .SampleType(PERF_SAMPLE_IP)
                         .Size(PERF_ATTR_SIZE_VER5)
                         .Ids({3, 4, 5});
  perftk::perf::Record r = Make(MakeHeaderAttr(attr));
  EXPECT_TRUE(r.is_header_record());
  absl::StatusOr<perf::HeaderAttrRecord> h = perf::HeaderAttrRecord::From(r);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->attr_bytes().size(), PERF_ATTR_SIZE_VER5);
  EXPECT_THAT(h->ids(), ElementsAre(3, 4, 5));

  perftk::perf::Record f = Make(MakeHeaderFeature(HEADER_HOSTNAME, StringFeature("host")));
  EXPECT_TRUE(f.is_header_record());
  absl::StatusOr<perf::HeaderFeatureRecord> hf = perf::HeaderFeatureRecord::From(f);
  ASSERT_TRUE(hf.ok());
  EXPECT_EQ(hf->feature(), static_cast<uint64_t>(HEADER_HOSTNAME));
  EXPECT_EQ(hf->data().size(), 4u + 64);
}

TEST_F(RecordViewTest, HeaderAttrOfImpossibleSize) {
  AttrBuilder attr = AttrBuilder().Size(PERF_ATTR_SIZE_VER5);
  std::vector<std::byte> bytes = MakeHeaderAttr(attr).Build();
  base::Store<uint32_t>(bytes.data() + 8 + attr_offset::kSize, 4000);  // larger than the record
  absl::StatusOr<perf::HeaderAttrRecord> h =
      perf::HeaderAttrRecord::From(perftk::perf::Record(bytes, 0));
  ASSERT_FALSE(h.ok());
  EXPECT_THAT(h.status().message(), HasSubstr("attr of impossible size 4000"));
  // Fuzzer find: 8 + 0xffffffff wrapped around in 32 bits and passed the
  // check, and a 4 GiB attr was copied out of a 200-byte record.
  for (uint32_t size : {0xffffffffu, 0xfffffff8u, 0xfffffffcu}) {
    SCOPED_TRACE(size);
    base::Store<uint32_t>(bytes.data() + 8 + attr_offset::kSize, size);
    h = perf::HeaderAttrRecord::From(perftk::perf::Record(bytes, 0));
    ASSERT_FALSE(h.ok());
    EXPECT_THAT(h.status().message(), HasSubstr(absl::StrCat("impossible size ", size)));
  }
  base::Store<uint32_t>(bytes.data() + 8 + attr_offset::kSize, 32);  // smaller than VER0
  EXPECT_FALSE(perf::HeaderAttrRecord::From(perftk::perf::Record(bytes, 0)).ok());
  // attr.size 0 means VER0, as perf reads it.
  base::Store<uint32_t>(bytes.data() + 8 + attr_offset::kSize, 0);
  h = perf::HeaderAttrRecord::From(perftk::perf::Record(bytes, 0));
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->attr_bytes().size(), PERF_ATTR_SIZE_VER0);
}

TEST_F(RecordViewTest, Switch) {
  absl::StatusOr<perf::SwitchRecord> s = perf::SwitchRecord::From(Make(MakeSwitch(/*out=*/true)));
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->is_out());
  s = perf::SwitchRecord::From(Make(MakeSwitchCpuWide(/*out=*/false, 12, 13)));
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->is_out());
  EXPECT_EQ(s->next_prev_pid(), 12u);
  EXPECT_EQ(s->next_prev_tid(), 13u);
  // A plain SWITCH is only a header.
  EXPECT_TRUE(perf::SwitchRecord::From(Make(RecordBuilder(PERF_RECORD_SWITCH))).ok());
}

TEST_F(RecordViewTest, StringsWithoutTerminatorStopAtTheRecordEnd) {
  // "abcdefgh" fills the 8 bytes exactly, no NUL.
  RecordBuilder b(PERF_RECORD_COMM);
  b.U32(1).U32(2).Raw(ToBytes("abcdefgh"));
  absl::StatusOr<perf::CommRecord> c = perf::CommRecord::From(Make(b));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->comm(), "abcdefgh");
  // No string at all.
  c = perf::CommRecord::From(Make(RecordBuilder(PERF_RECORD_COMM).U32(1).U32(2)));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->comm(), "");
}

TEST_F(RecordViewTest, EveryViewRefusesARecordShorterThanItsLayout) {
  struct Case {
    std::string name;
    RecordBuilder builder;
    size_t min;
    std::function<absl::Status(const perftk::perf::Record&)> from;
  };
  auto status = [](auto view) { return view.status(); };
  std::vector<Case> cases = {
      {"MMAP", MakeMmap({.filename = "x"}), 40,
       [&](const perftk::perf::Record& r) { return status(perf::MmapRecord::From(r)); }},
      {"MMAP2", MakeMmap2({.filename = "x"}), 72,
       [&](const perftk::perf::Record& r) { return status(perf::Mmap2Record::From(r)); }},
      {"COMM", MakeComm(1, 1, "x"), 16,
       [&](const perftk::perf::Record& r) { return status(perf::CommRecord::From(r)); }},
      {"FORK/EXIT", MakeFork({}), 32,
       [&](const perftk::perf::Record& r) { return status(perf::ForkRecord::From(r)); }},
      {"KSYMBOL", MakeKsymbol({.name = "x"}), 24,
       [&](const perftk::perf::Record& r) { return status(perf::KsymbolRecord::From(r)); }},
      {"TEXT_POKE", MakeTextPoke(0, ToBytes({1}), ToBytes({2})), 20,
       [&](const perftk::perf::Record& r) { return status(perf::TextPokeRecord::From(r)); }},
      {"AUX", MakeAux(1, 2, 3), 32,
       [&](const perftk::perf::Record& r) { return status(perf::AuxRecord::From(r)); }},
      {"AUXTRACE", MakeAuxtrace({}, {}), 48,
       [&](const perftk::perf::Record& r) { return status(perf::AuxtraceRecord::From(r)); }},
      {"AUXTRACE_INFO", MakeAuxtraceInfo(1, {}), 16,
       [&](const perftk::perf::Record& r) { return status(perf::AuxtraceInfoRecord::From(r)); }},
      {"HEADER_FEATURE", MakeHeaderFeature(HEADER_NRCPUS, NrCpusFeature(1, 1)), 16,
       [&](const perftk::perf::Record& r) { return status(perf::HeaderFeatureRecord::From(r)); }},
      {"HEADER_ATTR", MakeHeaderAttr(AttrBuilder().Size(PERF_ATTR_SIZE_VER0)), 72,
       [&](const perftk::perf::Record& r) { return status(perf::HeaderAttrRecord::From(r)); }},
      // Fuzzer find: an 8-byte SWITCH_CPU_WIDE was read at 8..16 by describe.
      {"SWITCH_CPU_WIDE", MakeSwitchCpuWide(true, 1, 2), 16,
       [&](const perftk::perf::Record& r) { return status(perf::SwitchRecord::From(r)); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_TRUE(c.from(Cut(c.builder, c.min)).ok());
    absl::Status s = c.from(Cut(c.builder, c.min - 1));
    ASSERT_FALSE(s.ok());
    EXPECT_THAT(s.message(), HasSubstr(c.name));
    EXPECT_THAT(s.message(), HasSubstr(absl::StrCat(c.min - 1, " bytes")));
  }
}

TEST(RecordTest, MakeRecordBytesSetsTheHeader) {
  std::vector<std::byte> body(16, std::byte{7});
  absl::StatusOr<std::vector<std::byte>> bytes = perf::MakeRecordBytes(PERF_RECORD_LOST, 3, body);
  ASSERT_TRUE(bytes.ok());
  ASSERT_EQ(bytes->size(), 24u);
  perftk::perf::Record r(*bytes, 0);
  EXPECT_EQ(r.type(), PERF_RECORD_LOST);
  EXPECT_EQ(r.misc(), 3);
  EXPECT_EQ(r.size(), 24);

  std::vector<std::byte> largest(0xffff - 8);
  EXPECT_TRUE(perf::MakeRecordBytes(PERF_RECORD_SAMPLE, 0, largest).ok());
  largest.push_back(std::byte{0});
  absl::StatusOr<std::vector<std::byte>> too_big =
      perf::MakeRecordBytes(PERF_RECORD_SAMPLE, 0, largest);
  ASSERT_FALSE(too_big.ok());
  EXPECT_THAT(too_big.status().message(), HasSubstr("does not fit the 16-bit size field"));
}

TEST(RecordTest, SetRecordHeaderFillsTheRoomLeftForIt) {
  std::vector<std::byte> body(16, std::byte{7});
  // The header's room holds junk until it is set.
  std::vector<std::byte> in_place(perf::kRecordHeaderSize + body.size(), std::byte{7});
  ASSERT_TRUE(perf::SetRecordHeader(PERF_RECORD_LOST, 3, in_place).ok());
  EXPECT_EQ(in_place, perf::MakeRecordBytes(PERF_RECORD_LOST, 3, body).value());

  std::vector<std::byte> largest(0xffff);
  EXPECT_TRUE(perf::SetRecordHeader(PERF_RECORD_SAMPLE, 0, largest).ok());
  largest.push_back(std::byte{0});
  absl::Status too_big = perf::SetRecordHeader(PERF_RECORD_SAMPLE, 0, largest);
  ASSERT_FALSE(too_big.ok());
  EXPECT_THAT(too_big.message(), HasSubstr("does not fit the 16-bit size field"));
  std::vector<std::byte> no_room(4);
  EXPECT_FALSE(perf::SetRecordHeader(PERF_RECORD_SAMPLE, 0, no_room).ok());
}

TEST(RecordTest, OwnedRecordKeepsBytesPayloadAndOffset) {
  RecordBuilder b = MakeAuxtrace({.cpu = 1}, ToBytes({1, 2, 3, 4, 5, 6, 7, 8}));
  perf::OwnedRecord owned;
  {
    std::vector<std::byte> bytes = b.Build();
    std::vector<std::byte> payload = b.trailing_payload();
    owned = perf::OwnedRecord(perftk::perf::Record(bytes, 0x55, payload));
  }
  EXPECT_EQ(owned.view().type(), PERF_RECORD_AUXTRACE);
  EXPECT_EQ(owned.view().file_offset(), 0x55u);
  EXPECT_EQ(std::vector<std::byte>(owned.view().bytes().begin(), owned.view().bytes().end()),
            b.Build());
  EXPECT_EQ(owned.view().trailing_payload().size(), 8u);
}

TEST(RecordTest, TypeNames) {
  EXPECT_EQ(perf::RecordTypeName(PERF_RECORD_MMAP), "MMAP");
  EXPECT_EQ(perf::RecordTypeName(PERF_RECORD_MMAP2), "MMAP2");
  EXPECT_EQ(perf::RecordTypeName(PERF_RECORD_CALLCHAIN_DEFERRED), "CALLCHAIN_DEFERRED");
  EXPECT_EQ(perf::RecordTypeName(PERF_RECORD_HEADER_ATTR), "HEADER_ATTR");
  EXPECT_EQ(perf::RecordTypeName(PERF_RECORD_FINISHED_ROUND), "FINISHED_ROUND");
  EXPECT_EQ(perf::RecordTypeName(PERF_RECORD_COMPRESSED), "COMPRESSED");
  EXPECT_EQ(perf::RecordTypeName(PERF_RECORD_SCHEDSTAT_DOMAIN), "SCHEDSTAT_DOMAIN");
  EXPECT_EQ(perf::RecordTypeName(0), "UNKNOWN(0)");
  EXPECT_EQ(perf::RecordTypeName(23), "UNKNOWN(23)");
  EXPECT_EQ(perf::RecordTypeName(63), "UNKNOWN(63)");
  EXPECT_EQ(perf::RecordTypeName(87), "UNKNOWN(87)");
  EXPECT_EQ(perf::RecordTypeName(0xffffffff), "UNKNOWN(4294967295)");
}

// --- byte order ------------------------------------------------------------

AttrBuilder TrailerAttr() {
  return AttrBuilder()
      .SampleType(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                  PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                  PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_DATA_SRC)
      .BranchSampleType(PERF_SAMPLE_BRANCH_HW_INDEX)
      .SampleIdAll()
      .Ids({0x1d});
}

perf::SampleId Trailer() {
  perf::SampleId id;
  id.pid = 100;
  id.tid = 101;
  id.time = 0x0102030405060708;
  id.id = 0x1d;
  id.stream_id = 0x5eed;
  id.cpu = 3;
  id.cpu_reserved = 0x11223344;
  id.identifier = 0x1d;
  return id;
}

perf::Sample ASample() {
  perf::Sample s;
  s.identifier = s.id = 0x1d;
  s.ip = 0x401234;
  s.pid = 100;
  s.tid = 101;
  s.time = 0x0102030405060708;
  s.stream_id = 0x5eed;
  s.cpu = 3;
  s.period = 1;
  s.callchain = {PERF_CONTEXT_USER, 0x401234, 0x401000};
  s.branch_stack.hw_idx = 1;
  s.branch_stack.entries = {{0x401000, 0x401100, 0x8000000000000001}, {1, 2, 0x12345678}};
  s.data_src = 0x29080842;
  return s;
}

TEST(SwapTest, EveryRecordTypeSwapsToItsNativeBytes) {
  AttrBuilder attr = TrailerAttr();
  perf::EventList events;
  events.Add(attr.Build());
  for (const RecordBuilder& b : EveryRecordType(attr, ASample(), Trailer())) {
    SCOPED_TRACE(perf::RecordTypeName(b.type()));
    std::vector<std::byte> record = b.Build(kForeign);
    ASSERT_TRUE(perf::SwapRecordToNative(events, record).ok());
    EXPECT_EQ(record, b.Build(kNative));
  }
}

TEST(SwapTest, WithoutEventsOnlyTheBodyIsSwapped) {
  // Pipe layout before any HEADER_ATTR: no trailer is known.
  perf::EventList none;
  RecordBuilder b = MakeFork({.pid = 1, .ppid = 2, .tid = 3, .ptid = 4, .time = 5});
  std::vector<std::byte> record = b.Build(kForeign);
  ASSERT_TRUE(perf::SwapRecordToNative(none, record).ok());
  EXPECT_EQ(record, b.Build(kNative));
}

TEST(SwapTest, HeaderAttrRecordSwapsAttrAndIds) {
  AttrBuilder attr = TrailerAttr()
                         .Type(PERF_TYPE_TRACEPOINT)
                         .Config(312)
                         .Flag(0)
                         .Flag(5)
                         .Flag(kAttrFlagUseClockid)
                         .Clockid(1)
                         .Size(PERF_ATTR_SIZE_VER7)
                         .Ids({7, 8, 0x1122334455667788});
  RecordBuilder b = MakeHeaderAttr(attr);
  std::vector<std::byte> record = b.Build(kForeign);
  ASSERT_TRUE(perf::SwapRecordToNative(perf::EventList(), record).ok());
  EXPECT_EQ(record, b.Build(kNative));
}

TEST(SwapTest, ShortRecordsAreErrorsNotCrashes) {
  AttrBuilder attr = TrailerAttr();
  perf::EventList events;
  events.Add(attr.Build());
  std::vector<std::byte> four(4);
  EXPECT_FALSE(perf::SwapRecordToNative(events, four).ok());
  // A COMM of 16 bytes cannot hold the 48-byte trailer.
  std::vector<std::byte> comm = RecordBuilder(PERF_RECORD_COMM).U32(1).U32(2).Build(kForeign);
  absl::Status s = perf::SwapRecordToNative(events, comm);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("shorter than its sample_id trailer"));
  // Fuzzer find: a foreign HEADER_ATTR shorter than 16 bytes had its
  // attr.size read past its end. Anything shorter than VER0 is an error.
  std::vector<std::byte> header_attr = MakeHeaderAttr(attr).Build(kForeign);
  for (size_t len = 8; len < header_attr.size(); len += 4) {
    SCOPED_TRACE(absl::StrCat("HEADER_ATTR cut to ", len));
    std::vector<std::byte> cut(header_attr.begin(), header_attr.begin() + len);
    base::Store<uint16_t>(cut.data() + 6, base::ByteSwap(static_cast<uint16_t>(len)));
    absl::Status s = perf::SwapRecordToNative(events, cut);
    if (len < 8 + PERF_ATTR_SIZE_VER0) {
      ASSERT_FALSE(s.ok());
      EXPECT_THAT(s.message(), HasSubstr("too short for an attr"));
    }
  }
  // Every cut of every record type: an error or a converted record, never a
  // read past the cut (the sanitizer build checks that). Kernel records too
  // short for their trailer and cut samples must be errors.
  const size_t trailer = attr.Format().trailer_size();
  for (const RecordBuilder& b : EveryRecordType(attr, ASample(), Trailer())) {
    SCOPED_TRACE(perf::RecordTypeName(b.type()));
    std::vector<std::byte> full = b.Build(kForeign);
    for (size_t len = 8; len < full.size(); len += 4) {
      std::vector<std::byte> cut(full.begin(), full.begin() + len);
      absl::Status s = perf::SwapRecordToNative(events, cut);
      if (b.type() == PERF_RECORD_SAMPLE ||
          (b.type() < PERF_RECORD_USER_TYPE_START && len < 8 + trailer)) {
        EXPECT_FALSE(s.ok()) << len;
      }
    }
  }
}

TEST(ForEachRecordIn, VisitsRecordsBuiltEndToEndAndRefusesACutShortOne) {
  std::vector<std::byte> records;
  for (uint32_t type : {PERF_RECORD_SAMPLE, PERF_RECORD_COMM}) {
    const std::vector<std::byte> body(8 * type, std::byte{0x5a});
    absl::StatusOr<std::vector<std::byte>> bytes = perf::MakeRecordBytes(type, 0, body);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    records.insert(records.end(), bytes->begin(), bytes->end());
  }
  std::vector<std::pair<uint32_t, uint16_t>> seen;
  auto note = [&seen](const perf::Record& record) {
    seen.emplace_back(record.type(), record.size());
    return absl::OkStatus();
  };
  ASSERT_TRUE(perf::ForEachRecordIn(records, note).ok());
  EXPECT_THAT(seen, ::testing::ElementsAre(::testing::Pair(PERF_RECORD_SAMPLE, 8 + 8 * 9),
                                           ::testing::Pair(PERF_RECORD_COMM, 8 + 8 * 3)));

  seen.clear();
  absl::Status cut = perf::ForEachRecordIn(base::Bytes(records).first(records.size() - 1), note);
  EXPECT_EQ(cut.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(seen, ::testing::ElementsAre(::testing::Pair(PERF_RECORD_SAMPLE, 8 + 8 * 9)));

  int visits = 0;
  absl::Status stopped = perf::ForEachRecordIn(records, [&visits](const perf::Record&) {
    ++visits;
    return absl::DataLossError("full");
  });
  EXPECT_EQ(stopped, absl::DataLossError("full"));
  EXPECT_EQ(visits, 1);
}

}  // namespace
}  // namespace perftk::testing
