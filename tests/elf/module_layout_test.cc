// ModuleLayout and KernelImage on real files: AOSP's arm64 rq_stats.ko (its
// section table checked with readelf -S: .plt NOBITS align 16 at index 1,
// .text.ftrace_trampoline NOBITS align 1, .text at file offset 0x1000 with
// align 4096, .init.text) and this test binary itself.
#include "elf/module_layout.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "elf/kernel_image.h"
#include "gtest/gtest.h"

namespace perftk::elf {
namespace {

const std::string kModule = std::string(PERFTK_ETM_DATA_DIR) + "/rq_stats.ko";

TEST(ModuleLayout, PlacesTextAsTheKernelLoaderDoes) {
  absl::StatusOr<std::unique_ptr<ElfFile>> ko = ElfFile::Open(kModule);
  ASSERT_TRUE(ko.ok()) << ko.status();
  absl::StatusOr<ModuleLayout> layout = ModuleLayout::Of(**ko);
  ASSERT_TRUE(layout.ok()) << layout.status();
  ASSERT_EQ(layout->text().size(), 3u);  // .init.text is left to the init allocation
  EXPECT_EQ(layout->text()[0].name, ".plt");
  EXPECT_EQ(layout->text()[0].memory_offset, 0u);
  EXPECT_EQ(layout->text()[1].name, ".text.ftrace_trampoline");
  EXPECT_EQ(layout->text()[1].memory_offset, 1u);
  EXPECT_EQ(layout->text()[2].name, ".text");
  EXPECT_EQ(layout->text()[2].memory_offset, 0x1000u);  // aligned to 4096
  EXPECT_EQ(layout->text_start(), 0x1000u);
  EXPECT_EQ(layout->FileOffset(0x1000), 0x1000u);
  EXPECT_EQ(layout->FileOffset(0x12f8), 0x12f8u);       // the last word of .text (size 0x2fc)
  EXPECT_EQ(layout->FileOffset(0x12fc), std::nullopt);  // past .text
  EXPECT_EQ(layout->FileOffset(0), std::nullopt);       // .plt has no file bytes
  EXPECT_EQ(layout->FileOffset(0x800), std::nullopt);   // the gap before .text
}

// .text+0x2ec holds `b .` (0x14000000) in the file with R_AARCH64_JUMP26 to
// .text+0x140 (llvm-readelf -r); relocated, it branches 0x140 - 0x2ec.
// The call of __stack_chk_fail (a kernel symbol) at .text+0x2e0 stays as it is.
TEST(ModuleLayout, RelocatesBranchesWithinTheModule) {
  absl::StatusOr<std::unique_ptr<ElfFile>> ko = ElfFile::Open(kModule);
  ASSERT_TRUE(ko.ok()) << ko.status();
  absl::StatusOr<ModuleLayout> layout = ModuleLayout::Of(**ko);
  ASSERT_TRUE(layout.ok()) << layout.status();
  EXPECT_GT(layout->relocated(), 0u);
  uint32_t word = 0;
  ASSERT_EQ(layout->Read(0x1000 + 0x2ec, 4, reinterpret_cast<uint8_t*>(&word)), 4u);
  EXPECT_EQ(word, 0x14000000u | ((static_cast<uint32_t>(0x140 - 0x2ec) / 4) & 0x3ffffffu));
  ASSERT_EQ(layout->Read(0x1000 + 0x2e0, 4, reinterpret_cast<uint8_t*>(&word)), 4u);
  EXPECT_EQ(word, 0x94000000u);  // bl __stack_chk_fail: the kernel's, unknown here
  // Reads stop at the end of .text and find nothing in .plt.
  uint8_t bytes[16];
  EXPECT_EQ(layout->Read(0x1000 + 0x2f8, 16, bytes), 4u);
  EXPECT_EQ(layout->Read(0, 4, bytes), 0u);
}

TEST(ModuleLayout, RefusesALinkedFile) {
  absl::StatusOr<std::unique_ptr<ElfFile>> self = ElfFile::Open("/proc/self/exe");
  ASSERT_TRUE(self.ok()) << self.status();
  absl::StatusOr<ModuleLayout> layout = ModuleLayout::Of(**self);
  ASSERT_FALSE(layout.ok());
  EXPECT_NE(std::string(layout.status().message()).find("not a kernel module"), std::string::npos);
}

TEST(KernelImage, LoadsOfALinkedFileAndItsSymbols) {
  absl::StatusOr<std::unique_ptr<ElfFile>> self = ElfFile::Open("/proc/self/exe");
  ASSERT_TRUE(self.ok()) << self.status();
  absl::StatusOr<KernelImage> image = KernelImage::Of(**self);
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_FALSE(image->is_core());
  std::optional<uint64_t> main_value = SymbolValue(**self, "main");
  ASSERT_TRUE(main_value.has_value());
  // main's code is in a load, at the file offset the section table gives.
  std::optional<std::pair<uint64_t, uint64_t>> range = image->FileRange(*main_value);
  ASSERT_TRUE(range.has_value());
  const Section* text = (*self)->SectionContaining(*main_value);
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(range->first, *main_value - text->addr + text->offset);
  EXPECT_EQ(SymbolValue(**self, "no_such_symbol_anywhere"), std::nullopt);
}

TEST(KernelImage, RefusesAFileThatIsNotACore) {
  int fd = open(kModule.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  absl::StatusOr<KernelImage> image = KernelImage::OfCore(fd, kModule);
  close(fd);
  ASSERT_FALSE(image.ok());
  EXPECT_NE(std::string(image.status().message()).find("not a 64-bit native-endian ELF core"),
            std::string::npos);
}

}  // namespace
}  // namespace perftk::elf
