// ScrubTracingData on sections laid out as perf writes them (tools/perf
// util/trace-event-info.c's order): the kernel's symbol table and printk
// formats are emptied, every other byte is kept, in either byte order; a
// section that is cut short or not tracing data is an error, never a read
// past its end.
#include "perf/tracing_data.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk {
namespace {

using ::testing::HasSubstr;

// Writes a tracing_data section field by field.
class SectionWriter {
 public:
  explicit SectionWriter(bool big_endian)
      : swap_(big_endian != (std::endian::native == std::endian::big)) {}

  template <typename T>
  SectionWriter& Int(T v) {
    if (swap_) {
      T swapped = 0;
      for (size_t i = 0; i < sizeof(T); ++i) swapped = (swapped << 8) | ((v >> (8 * i)) & 0xff);
      v = swapped;
    }
    const size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &v, sizeof(T));
    return *this;
  }
  SectionWriter& Raw(const std::string& s) {
    for (char c : s) bytes_.push_back(static_cast<std::byte>(c));
    return *this;
  }
  SectionWriter& String(const std::string& s) { return Raw(s).Raw(std::string(1, '\0')); }
  size_t size() const { return bytes_.size(); }
  std::vector<std::byte> bytes() const { return bytes_; }

 private:
  bool swap_;
  std::vector<std::byte> bytes_;
};

struct Built {
  std::vector<std::byte> bytes;
  size_t kallsyms_at = 0;  // where the kallsyms size is
  size_t rest_at = 0;      // after the printk formats
};

Built BuildSection(bool big_endian, const std::string& kallsyms, const std::string& printk) {
  SectionWriter w(big_endian);
  w.Raw("\x17\x08\x44tracing").String("0.6");
  w.Int<uint8_t>(big_endian ? 1 : 0).Int<uint8_t>(8).Int<uint32_t>(4096);
  w.String("header_page").Int<uint64_t>(5).Raw("page!");
  w.String("header_event").Int<uint64_t>(3).Raw("evt");
  w.Int<uint32_t>(2).Int<uint64_t>(4).Raw("ftr1").Int<uint64_t>(2).Raw("f2");  // ftrace formats
  w.Int<uint32_t>(1).String("sched").Int<uint32_t>(1).Int<uint64_t>(6).Raw("format");
  Built built;
  built.kallsyms_at = w.size();
  w.Int<uint32_t>(static_cast<uint32_t>(kallsyms.size())).Raw(kallsyms);
  w.Int<uint32_t>(static_cast<uint32_t>(printk.size())).Raw(printk);
  built.rest_at = w.size();
  w.Int<uint64_t>(9).Raw("1 bash\n2\n");  // saved cmdlines
  built.bytes = w.bytes();
  return built;
}

TEST(ScrubTracingData, EmptiesKallsymsAndPrintkKeepsTheRest) {
  for (bool big : {false, true}) {
    SCOPED_TRACE(big ? "big endian" : "little endian");
    const std::string kallsyms = "ffffffff81000000 T _stext\nffffffff81000100 t secret\n";
    const std::string printk = "0xffffffff82000000 : \"hello %d\"\n";
    Built built = BuildSection(big, kallsyms, printk);
    std::vector<std::byte> section = built.bytes;
    ASSERT_TRUE(perf::ScrubTracingData(section).ok());

    ASSERT_EQ(section.size(), built.bytes.size() - kallsyms.size() - printk.size());
    std::vector<std::byte> want(built.bytes.begin(), built.bytes.begin() + built.kallsyms_at);
    want.resize(want.size() + 8, std::byte{0});
    want.insert(want.end(), built.bytes.begin() + built.rest_at, built.bytes.end());
    EXPECT_EQ(section, want);
    const std::string text(reinterpret_cast<const char*>(section.data()), section.size());
    EXPECT_EQ(text.find("ffffffff"), std::string::npos);
    EXPECT_NE(text.find("1 bash"), std::string::npos);

    // Scrubbed again: nothing more to take out, nothing changes.
    std::vector<std::byte> again = section;
    ASSERT_TRUE(perf::ScrubTracingData(again).ok());
    EXPECT_EQ(again, section);
  }
}

TEST(ScrubTracingData, NotTracingDataIsAnError) {
  std::vector<std::byte> section(32, std::byte{0x41});
  absl::Status s = perf::ScrubTracingData(section);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("no tracing magic"));
  std::vector<std::byte> empty;
  EXPECT_FALSE(perf::ScrubTracingData(empty).ok());
}

TEST(ScrubTracingData, EveryCutIsAnErrorAndLeavesTheSection) {
  const Built built = BuildSection(false, "ffffffff81000000 T _stext\n", "fmt\n");
  // Any cut before the saved cmdlines loses a part the walk needs.
  for (size_t size = 0; size < built.rest_at; ++size) {
    SCOPED_TRACE(size);
    std::vector<std::byte> section(built.bytes.begin(), built.bytes.begin() + size);
    const std::vector<std::byte> before = section;
    EXPECT_FALSE(perf::ScrubTracingData(section).ok());
    EXPECT_EQ(section, before);
  }
}

TEST(ScrubTracingData, ASizePastTheEndIsAnError) {
  Built built = BuildSection(false, "k", "p");
  // The first ftrace format's size (after the count) set to 2^64 - 1.
  SectionWriter probe(false);
  probe.Raw("\x17\x08\x44tracing").String("0.6").Int<uint8_t>(0).Int<uint8_t>(8).Int<uint32_t>(0);
  probe.String("header_page").Int<uint64_t>(5).Raw("page!");
  probe.String("header_event").Int<uint64_t>(3).Raw("evt").Int<uint32_t>(2);
  const size_t size_at = probe.size();
  std::memset(built.bytes.data() + size_at, 0xff, 8);
  absl::Status s = perf::ScrubTracingData(built.bytes);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("run past the section"));
}

}  // namespace
}  // namespace perftk
