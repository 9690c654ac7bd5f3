// Etm4PacketParser against OpenCSD's packet processor (the oracle), on
// hand-written streams with every packet the fast decoder reads and on
// random bytes, for ETMv4.0, 4.4 and 4.6 configurations. OpenCSD 1.3.3's C
// API gives no packets of an ETE source (attaching the callback fails with
// OCSD_ERR_NO_PROTOCOL): what ETE adds is checked through the decoder.
#include <cstdint>
#include <random>
#include <vector>

#include "../testing/opencsd_packets.h"
#include "cs_etm/etm4_packets.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::cs_etm {
namespace {

using opencsd_oracle::Comparable;
using opencsd_oracle::Describe;
using opencsd_oracle::OpenCsdPackets;

TraceSource EtmV4(uint32_t idr1, uint32_t idr0 = 0x28000ea1, uint32_t idr2 = 0x00000488,
                  uint32_t configr = 0xc1, uint32_t idr8 = 0) {
  TraceSource source;
  source.protocol = TraceProtocol::kEtmV4;
  source.trcidr0 = idr0;
  source.trcidr1 = idr1;
  source.trcidr2 = idr2;
  source.trcidr8 = idr8;
  source.trcconfigr = configr;
  source.trctraceidr = 0x10;
  return source;
}

// ETMv4.4 (an A72's), 32-bit context ids, 8-bit VMIDs.
TraceSource EtmV44() { return EtmV4(0x4100f440); }
// ETMv4.0 with Q elements, COMMOPT, speculation depth 4, 32-bit VMIDs, 20-bit
// cycle counts and WFI/WFE traced as branches (ignored before 4.3).
TraceSource EtmV40Q() {
  return EtmV4(0x4100f403, 0x28000ea1 | (3u << 15) | (1u << 29),
               0x80000488u | (4u << 10) | (8u << 25), 0xc1 | (1u << 13), 4);
}
// ETMv4.6: ignore and timestamp marker packets, 16-bit VMIDs.
TraceSource EtmV46() { return EtmV4(0x4100f460, 0x28000ea1, 0x00000488 | (2u << 10)); }

std::vector<Etm4Packet> Ours(const TraceSource& source, std::span<const uint8_t> data,
                             std::span<const size_t> pieces = {}) {
  Etm4PacketParser parser(Etm4Config::For(source));
  std::vector<Etm4Packet> packets;
  size_t at = 0;
  for (size_t piece : pieces) {
    piece = std::min(piece, data.size() - at);
    parser.Parse(data.subspan(at, piece), at, packets);
    at += piece;
  }
  parser.Parse(data.subspan(at), at, packets);
  parser.Finish(packets);
  return packets;
}

// Empty if equal, else the first difference with a few lines around it.
std::string FirstDifference(const std::vector<std::string>& got,
                            const std::vector<std::string>& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  if (i == got.size() && i == want.size()) return "";
  std::string text = "first difference at packet " + std::to_string(i) + " (perftk " +
                     std::to_string(got.size()) + ", OpenCSD " + std::to_string(want.size()) +
                     " packets)\n";
  for (size_t j = i >= 3 ? i - 3 : 0; j < i + 3; ++j) {
    text += "  perftk:  " + (j < got.size() ? got[j] : "-") + "\n";
    text += "  OpenCSD: " + (j < want.size() ? want[j] : "-") + "\n";
  }
  return text;
}

const std::vector<uint8_t> kAsync = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80};

void Append(std::vector<uint8_t>& stream, std::initializer_list<uint8_t> bytes) {
  stream.insert(stream.end(), bytes.begin(), bytes.end());
}

std::vector<uint8_t> HandWritten() {
  std::vector<uint8_t> s = {0x12, 0x34};  // before the first A-sync
  s.insert(s.end(), kAsync.begin(), kAsync.end());
  Append(s, {0x01, 0x89, 0x01, 0x01, 0x05});              // trace info: info 1, cycle threshold 5
  Append(s, {0x02, 0x85, 0x01});                          // timestamp 0x85 | 1 << 7
  Append(s, {0x03, 0x10, 0x81, 0x02});                    // timestamp, cycle count 0x101
  Append(s, {0x81, 0xd1, 0x07, 0x44, 0x33, 0x22, 0x11});  // context: EL1, SF, VMID 7, CID
  Append(s, {0x80});                                      // context: the same
  Append(s, {0x85, 0x04, 0x02, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00,  // address 0x400410
             0x90, 0x44, 0x33, 0x22, 0x11});  // and context: EL0, AArch64, CID 0x11223344
  Append(s, {0x9d, 0x20, 0x04, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00});  // long address 0x400880
  Append(s, {0x95, 0x10});                                            // short address, 7 bits
  Append(s, {0x95, 0x90, 0x03});                                      // short address, 15 bits
  Append(s, {0x9a, 0x01, 0x02, 0x03, 0x04});                          // long 32-bit
  Append(s, {0x91, 0x90, 0x92});                                      // exact matches
  Append(s, {0xf6, 0xf7, 0xd9, 0xfd, 0xdc, 0xdd, 0xde, 0xdf, 0xd5, 0xd6, 0xd7, 0xf5, 0xd4, 0xe4,
             0xc0});                                               // atoms of every format
  Append(s, {0x06, 0x1c, 0x9d, 0x00, 0x01, 0x40, 0, 0, 0, 0, 0});  // IRQ, return address
  Append(s, {0x06, 0x85, 0x03});                                   // exception, two info bytes
  Append(s, {0x07, 0x04});                                         // exception return, trace on
  Append(s, {0x0e, 0x03, 0x05});                          // cycle count F1: commit 3, count 5
  Append(s, {0x0f, 0x02});                                // F1 without count
  Append(s, {0x0c, 0x35});                                // F2
  Append(s, {0x0d, 0x35});                                // F2, the other offset
  Append(s, {0x1b});                                      // F3
  Append(s, {0x2d, 0x83, 0x01});                          // commit 131
  Append(s, {0x2e, 0x02, 0x2f, 0x03});                    // cancel F1, with mispredict
  Append(s, {0x31, 0x32, 0x33, 0x30, 0x35, 0x3b, 0x38});  // mispredict, cancel F2/F3
  Append(s, {0x71, 0x7f, 0x70});                          // events, ignore
  Append(s, {0xa0, 0x05, 0xa6, 0x90, 0x01, 0x07, 0xab, 1, 2, 3, 4, 0x81, 0x01, 0xaf, 0xac, 0x03,
             0xa3});                                // Q packets, a reserved one
  Append(s, {0x00, 0x05, 0x00, 0x03, 0x00, 0x07});  // overflow, discard, a bad extension
  Append(s, {0x08, 0x09, 0x0a, 0x0b, 0x40, 0x47, 0x88, 0xb0, 0xb4, 0x01, 0xb8, 1, 2, 3, 4, 5, 6, 7,
             8});                                               // reserved or ETE-only headers
  Append(s, {0x01, 0x9f, 0x01, 0x00, 0x03, 0x04, 0x05, 0x06});  // trace info, every section
  Append(s, {0x02, 0x05});                                      // timestamp after it: 64 bits
  Append(s, {0x9d, 0x20});                                      // cut short by the end
  return s;
}

TEST(Etm4PacketParser, HandWrittenStreamAsOpenCsdReadsIt) {
  const std::vector<uint8_t> stream = HandWritten();
  for (const TraceSource& source : {EtmV44(), EtmV40Q(), EtmV46()}) {
    std::vector<Etm4Packet> want = OpenCsdPackets(source, stream);
    ASSERT_GT(want.size(), 60u);
    EXPECT_EQ(FirstDifference(Comparable(Ours(source, stream)), Comparable(want)), "")
        << "idr1 " << std::hex << source.trcidr1;
  }
}

TEST(Etm4PacketParser, HandWrittenStreamValues) {
  const std::vector<uint8_t> stream = HandWritten();
  std::vector<Etm4Packet> packets = Ours(EtmV44(), stream);
  ASSERT_GT(packets.size(), 10u);
  EXPECT_EQ(packets[0].type, Etm4PacketType::kNotSync);
  EXPECT_EQ(packets[1].type, Etm4PacketType::kAsync);
  EXPECT_EQ(packets[1].index, 2u);
  EXPECT_EQ(packets[2].type, Etm4PacketType::kTraceInfo);
  EXPECT_EQ(packets[2].cc_threshold, 5u);
  EXPECT_EQ(packets[3].timestamp, 0x85u);
  EXPECT_EQ(packets[4].cycle_count, 0x101u);
  EXPECT_EQ(packets[5].context.vmid, 7u);
  EXPECT_EQ(packets[5].context.context_id, 0x11223344u);
  EXPECT_EQ(packets[5].context.el, 1);
  EXPECT_EQ(packets[7].address, 0x400410u);
  EXPECT_EQ(packets[8].address, 0x400880u);
  EXPECT_EQ(packets[9].address, 0x400840u);  // bits [8:2] replaced
  auto last = packets.back();
  EXPECT_EQ(last.type, Etm4PacketType::kIncompleteEot);
  EXPECT_EQ(last.error_of, Etm4PacketType::kLongAddress64Is0);
}

// Round `round`'s stream: mostly synchronized (some start with junk or
// zeros), then 1 to `max_size` random bytes, one in `zero_one_in` a zero
// (0: none; runs of zeros look like the start of an A-sync), and every
// `async_every` rounds an A-sync in the middle: resynchronization.
std::vector<uint8_t> RandomStream(std::mt19937& random, int round, int max_size, int zero_one_in,
                                  int async_every) {
  std::vector<uint8_t> stream;
  if (round % 4 != 3) stream = kAsync;
  if (round % 8 == 7) stream.insert(stream.begin(), 14, 0);
  std::uniform_int_distribution<int> size(1, max_size);
  const int n = size(random);
  for (int i = 0; i < n; ++i) {
    const bool zero = zero_one_in > 0 && random() % zero_one_in == 0;
    stream.push_back(zero ? 0 : static_cast<uint8_t>(random()));
  }
  if (round % async_every == 0) {
    stream.insert(stream.begin() + stream.size() / 2, kAsync.begin(), kAsync.end());
  }
  return stream;
}

TEST(Etm4PacketParser, RandomBytesAsOpenCsdReadsThem) {
  std::mt19937 random(29);
  int compared = 0;
  for (const TraceSource& source : {EtmV44(), EtmV40Q(), EtmV46()}) {
    for (int round = 0; round < 300; ++round) {
      const std::vector<uint8_t> stream = RandomStream(random, round, 2048, 0, 5);
      std::vector<Etm4Packet> want = OpenCsdPackets(source, stream);
      ASSERT_EQ(FirstDifference(Comparable(Ours(source, stream)), Comparable(want)), "")
          << "round " << round << ", idr1 " << std::hex << source.trcidr1;
      compared += static_cast<int>(want.size());
    }
  }
  EXPECT_GT(compared, 100000);
}

// Raw trace goes to the parser in pieces (fast_decoder.h's kRawPiece)
// while OpenCSD takes the block whole: where a piece ends, synchronized or
// not, must not show in the packets.
TEST(Etm4PacketParser, RandomBytesInPiecesAsOpenCsdReadsThemWhole) {
  std::mt19937 random(31);
  int compared = 0;
  for (const TraceSource& source : {EtmV44(), EtmV46()}) {
    for (int round = 0; round < 200; ++round) {
      const std::vector<uint8_t> stream = RandomStream(random, round, 4096, 16, 3);
      std::vector<size_t> pieces;
      std::uniform_int_distribution<size_t> piece(1, round % 2 == 0 ? 16 : 512);
      for (size_t total = 0; total < stream.size();) {
        pieces.push_back(piece(random));
        total += pieces.back();
      }
      std::vector<Etm4Packet> want = OpenCsdPackets(source, stream);
      ASSERT_EQ(FirstDifference(Comparable(Ours(source, stream, pieces)), Comparable(want)), "")
          << "round " << round << ", idr1 " << std::hex << source.trcidr1;
      compared += static_cast<int>(want.size());
    }
  }
  EXPECT_GT(compared, 50000);
}

TEST(Etm4PacketParser, PiecesGiveTheSamePackets) {
  std::mt19937 random(30);
  const std::vector<uint8_t> stream = HandWritten();
  const std::vector<std::string> whole = Describe(Ours(EtmV44(), stream));
  for (int round = 0; round < 50; ++round) {
    std::vector<size_t> pieces;
    for (size_t total = 0; total < stream.size();) {
      pieces.push_back(random() % 7 + 1);
      total += pieces.back();
    }
    EXPECT_EQ(FirstDifference(Describe(Ours(EtmV44(), stream, pieces)), whole), "");
  }
}

}  // namespace
}  // namespace perftk::cs_etm
