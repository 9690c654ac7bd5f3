#include "perf/decompressor.h"

#include <zstd.h>

#include <cstddef>
#include <random>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk {
namespace {

using ::testing::HasSubstr;

std::vector<std::byte> Text(size_t size, uint32_t seed) {
  // Compressible but not trivially: words from a small alphabet.
  std::mt19937 random(seed);
  std::vector<std::byte> bytes(size);
  for (std::byte& b : bytes) b = static_cast<std::byte>('a' + random() % 6);
  return bytes;
}

// One zstd stream of `input`, flushed after each of `pieces` (their sizes
// add up to input.size()): the compressed bytes, cut where each flush ended,
// as perf writes one PERF_RECORD_COMPRESSED per flush.
std::vector<std::vector<std::byte>> CompressedPieces(const std::vector<std::byte>& input,
                                                     const std::vector<size_t>& pieces) {
  ZSTD_CStream* stream = ZSTD_createCStream();
  ZSTD_initCStream(stream, 3);
  std::vector<std::vector<std::byte>> out;
  size_t at = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const bool last = i + 1 == pieces.size();
    ZSTD_inBuffer in{input.data() + at, pieces[i], 0};
    std::vector<std::byte> compressed;
    size_t left = 0;
    do {
      const size_t before = compressed.size();
      compressed.resize(before + ZSTD_CStreamOutSize());
      ZSTD_outBuffer dst{compressed.data() + before, ZSTD_CStreamOutSize(), 0};
      left = ZSTD_compressStream2(stream, &dst, &in, last ? ZSTD_e_end : ZSTD_e_flush);
      EXPECT_FALSE(ZSTD_isError(left)) << ZSTD_getErrorName(left);
      compressed.resize(before + dst.pos);
    } while (left != 0 && !ZSTD_isError(left));
    at += pieces[i];
    out.push_back(std::move(compressed));
  }
  ZSTD_freeCStream(stream);
  return out;
}

TEST(Decompressor, OneStreamAcrossRecordsGivesTheBytesBack) {
  const std::vector<std::byte> input = Text(300000, 1);
  const auto pieces = CompressedPieces(input, {1000, 120000, 7, 178993});
  perf::Decompressor decompressor;
  std::vector<std::byte> out;
  for (const std::vector<std::byte>& piece : pieces) {
    ASSERT_TRUE(decompressor.Decompress(piece, out, input.size()).ok());
  }
  EXPECT_TRUE(out == input);
}

TEST(Decompressor, AFrameCutInsideARecordContinuesInTheNext) {
  const std::vector<std::byte> input = Text(50000, 2);
  const std::vector<std::byte> whole = CompressedPieces(input, {input.size()})[0];
  for (size_t cut : {size_t{1}, size_t{5}, whole.size() / 2, whole.size() - 1}) {
    perf::Decompressor decompressor;
    std::vector<std::byte> out;
    const base::Bytes bytes(whole);
    ASSERT_TRUE(decompressor.Decompress(bytes.first(cut), out, input.size()).ok()) << cut;
    ASSERT_TRUE(decompressor.Decompress(bytes.subspan(cut), out, input.size()).ok()) << cut;
    EXPECT_TRUE(out == input) << "cut at " << cut;
  }
}

TEST(Decompressor, ARecordThatExpandsManyTimesOverComesOutWhole) {
  // 8 MB of zeros are a few hundred compressed bytes: far more output than
  // any first guess of room.
  const std::vector<std::byte> input(8 << 20, std::byte{0});
  const std::vector<std::byte> whole = CompressedPieces(input, {input.size()})[0];
  ASSERT_LT(whole.size(), 4096u);
  perf::Decompressor decompressor;
  std::vector<std::byte> out;
  ASSERT_TRUE(decompressor.Decompress(whole, out, input.size()).ok());
  EXPECT_EQ(out.size(), input.size());
}

TEST(Decompressor, StopsAtTheLimit) {
  const std::vector<std::byte> input(1 << 20, std::byte{7});
  const std::vector<std::byte> whole = CompressedPieces(input, {input.size()})[0];
  perf::Decompressor decompressor;
  std::vector<std::byte> out;
  const absl::Status status = decompressor.Decompress(whole, out, 4096);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("expands past 4096 bytes"));
  EXPECT_LE(out.size(), 4096u);
}

TEST(Decompressor, CorruptBytesAreAnError) {
  const std::vector<std::byte> garbage(64, std::byte{0x5a});
  perf::Decompressor decompressor;
  std::vector<std::byte> out;
  const absl::Status status = decompressor.Decompress(garbage, out, 1 << 20);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("zstd"));
}

TEST(Decompressor, NothingInNothingOut) {
  perf::Decompressor decompressor;
  std::vector<std::byte> out;
  EXPECT_TRUE(decompressor.Decompress({}, out, 16).ok());
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace perftk
