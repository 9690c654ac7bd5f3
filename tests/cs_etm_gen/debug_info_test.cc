// The generator's DWARF read back by elfutils' libdw (an independent
// reader): every instruction of etm_demo has its own line, every function
// symbol a DW_TAG_subprogram with its name, range and first line.
#include "debug_info.h"

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "gtest/gtest.h"
#include "programs.h"

namespace perftk::etm_gen {
namespace {

struct Function {
  uint64_t low = 0, high = 0;
  int decl_line = 0;
};

int CollectFunction(Dwarf_Die* die, void* arg) {
  auto* functions = static_cast<std::map<std::string, Function>*>(arg);
  Function f;
  Dwarf_Addr low = 0, high = 0;
  if (dwarf_lowpc(die, &low) == 0 && dwarf_highpc(die, &high) == 0) {
    f.low = low;
    f.high = high;
  }
  dwarf_decl_line(die, &f.decl_line);
  (*functions)[dwarf_diename(die)] = f;
  return DWARF_CB_OK;
}

TEST(DebugInfo, LibdwReadsLinesAndFunctions) {
  absl::StatusOr<DemoPrograms> programs = BuildDemoPrograms();
  ASSERT_TRUE(programs.ok()) << programs.status();
  const std::string path =
      (std::filesystem::temp_directory_path() / ("etm_demo_dwarf." + std::to_string(getpid())))
          .string();
  ASSERT_TRUE(WriteElf(programs->user, path).ok());
  int fd = open(path.c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  Dwarf* dwarf = dwarf_begin(fd, DWARF_C_READ);
  ASSERT_NE(dwarf, nullptr) << dwarf_errmsg(-1);

  const uint64_t text = programs->user.link_base + kTextOffset;
  // The one compile unit (there is no .debug_aranges to find it by address).
  Dwarf_Off next = 0;
  size_t header_size = 0;
  ASSERT_EQ(dwarf_nextcu(dwarf, 0, &next, &header_size, nullptr, nullptr, nullptr), 0);
  Dwarf_Die cu;
  ASSERT_NE(dwarf_offdie(dwarf, header_size, &cu), nullptr) << dwarf_errmsg(-1);
  for (size_t i = 0; i < programs->user.code.size(); ++i) {
    const uint64_t address = text + 4 * i;
    Dwarf_Line* line = dwarf_getsrc_die(&cu, address);
    ASSERT_NE(line, nullptr) << std::hex << address;
    int number = 0;
    Dwarf_Addr line_address = 0;
    dwarf_lineno(line, &number);
    dwarf_lineaddr(line, &line_address);
    EXPECT_EQ(line_address, address);
    EXPECT_EQ(static_cast<uint32_t>(number), LineOf(text, address)) << std::hex << address;
    EXPECT_STREQ(dwarf_linesrc(line, nullptr, nullptr), "etm_demo.s");
  }

  std::map<std::string, Function> functions;
  dwarf_getfuncs(&cu, CollectFunction, &functions, 0);
  ASSERT_EQ(functions.size(), programs->user.symbols.size());
  for (const Assembler::Symbol& symbol : programs->user.symbols) {
    ASSERT_TRUE(functions.count(symbol.name)) << symbol.name;
    const Function& f = functions[symbol.name];
    EXPECT_EQ(f.low, symbol.address) << symbol.name;
    EXPECT_EQ(f.high, symbol.address + symbol.size) << symbol.name;
    EXPECT_EQ(static_cast<uint32_t>(f.decl_line), LineOf(text, symbol.address)) << symbol.name;
  }
  dwarf_end(dwarf);
  close(fd);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace perftk::etm_gen
