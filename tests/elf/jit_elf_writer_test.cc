// The ELF files perftk jit writes, checked with libelf directly and with the
// tools that consume them (readelf, addr2line, llvm-symbolizer, llvm-dwarfdump).
#include "elf/jit_elf_writer.h"

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "../testing/v8_eh_frame.h"
#include "elf/sha1.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace perftk::elf {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Hex(const Sha1::Digest& d) {
  std::string out;
  char buf[3];
  for (uint8_t b : d) {
    std::snprintf(buf, sizeof(buf), "%02x", b);
    out += buf;
  }
  return out;
}

std::string Sha1Hex(const std::string& text, size_t chunk = SIZE_MAX,
                    Sha1::Engine engine = Sha1::BestEngine()) {
  Sha1 sha(engine);
  for (size_t i = 0; i < text.size(); i += std::min(chunk, text.size())) {
    sha.Update(base::AsBytes(text.data() + i, std::min(chunk, text.size() - i)));
  }
  return Hex(sha.Finish());
}

// Every engine this machine has: the portable one, and SHA-NI where the CPU
// has it.
std::vector<Sha1::Engine> Engines() {
  std::vector<Sha1::Engine> engines = {Sha1::Engine::kPortable};
  if (Sha1::HasShaNi()) engines.push_back(Sha1::Engine::kShaNi);
  return engines;
}

TEST(Sha1, KnownVectors) {
  for (Sha1::Engine engine : Engines()) {
    SCOPED_TRACE(engine == Sha1::Engine::kShaNi ? "SHA-NI" : "portable");
    EXPECT_EQ(Sha1Hex("", SIZE_MAX, engine), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
    EXPECT_EQ(Sha1Hex("abc", SIZE_MAX, engine), "a9993e364706816aba3e25717850c26c9cd0d89d");
    std::string two_blocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    EXPECT_EQ(Sha1Hex(two_blocks, SIZE_MAX, engine), "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
    std::string long_vector =
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
        "klmnopqrlmnopqrsmnopqrstnopqrstu";
    EXPECT_EQ(Sha1Hex(long_vector, SIZE_MAX, engine), "a49b2446a02c645bf419f995b67091253a04a259");
    std::string million(1000000, 'a');
    EXPECT_EQ(Sha1Hex(million, SIZE_MAX, engine), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    EXPECT_EQ(Sha1Hex(million, 4093, engine), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
    for (size_t chunk : {1, 3, 63, 64, 65, 1000}) {
      EXPECT_EQ(Sha1Hex(two_blocks + two_blocks, chunk, engine), Sha1Hex(two_blocks + two_blocks))
          << chunk;
    }
  }
}

TEST(Sha1, EnginesAgreeOnEveryLengthAndChunking) {
  if (!Sha1::HasShaNi()) GTEST_SKIP() << "this CPU has no SHA extensions";
  std::string text;
  uint32_t x = 12345;
  for (int i = 0; i < 2000; ++i) {
    x = x * 1103515245 + 12345;
    text.push_back(static_cast<char>(x >> 16));
  }
  for (size_t length = 0; length <= text.size(); length += length < 200 ? 1 : 37) {
    std::string part = text.substr(0, length);
    for (size_t chunk : {size_t{7}, size_t{64}, size_t{100}, SIZE_MAX}) {
      ASSERT_EQ(Sha1Hex(part, chunk, Sha1::Engine::kShaNi),
                Sha1Hex(part, chunk, Sha1::Engine::kPortable))
          << "length " << length << " chunk " << chunk;
    }
  }
}

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/" + name + "." + std::to_string(getpid()) + ".so";
}

// Output of a shell command, or nullopt when it cannot run.
std::optional<std::string> RunCommand(const std::string& command) {
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  if (pclose(pipe) != 0) return std::nullopt;
  return out;
}

bool Have(const std::string& tool) { return RunCommand("command -v " + tool).has_value(); }

// The file as libelf sees it.
struct Parsed {
  GElf_Ehdr ehdr;
  std::vector<GElf_Phdr> phdrs;
  std::map<std::string, GElf_Shdr> sections;
  std::map<std::string, std::vector<std::byte>> contents;
  std::vector<std::pair<std::string, GElf_Sym>> symbols;
  std::string build_id;
};

Parsed Parse(const std::string& path) {
  Parsed p;
  elf_version(EV_CURRENT);
  int fd = open(path.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  EXPECT_NE(elf, nullptr) << elf_errmsg(-1);
  EXPECT_NE(gelf_getehdr(elf, &p.ehdr), nullptr);
  size_t phnum = 0, shstrndx = 0;
  elf_getphdrnum(elf, &phnum);
  for (size_t i = 0; i < phnum; ++i) {
    GElf_Phdr phdr;
    gelf_getphdr(elf, i, &phdr);
    p.phdrs.push_back(phdr);
  }
  elf_getshdrstrndx(elf, &shstrndx);
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr shdr;
    gelf_getshdr(scn, &shdr);
    std::string name = elf_strptr(elf, shstrndx, shdr.sh_name);
    p.sections[name] = shdr;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data && data->d_buf) {
      auto* b = static_cast<const std::byte*>(data->d_buf);
      p.contents[name].assign(b, b + data->d_size);
    }
    if (shdr.sh_type == SHT_SYMTAB) {
      for (size_t i = 1; i < shdr.sh_size / shdr.sh_entsize; ++i) {
        GElf_Sym sym;
        gelf_getsym(data, static_cast<int>(i), &sym);
        p.symbols.emplace_back(elf_strptr(elf, shdr.sh_link, sym.st_name), sym);
      }
    }
    if (shdr.sh_type == SHT_NOTE) {
      GElf_Nhdr nhdr;
      size_t name_off, desc_off;
      if (gelf_getnote(data, 0, &nhdr, &name_off, &desc_off) > 0 &&
          nhdr.n_type == NT_GNU_BUILD_ID) {
        const auto* d = static_cast<const uint8_t*>(data->d_buf) + desc_off;
        Sha1::Digest id;
        std::copy(d, d + 20, id.begin());
        p.build_id = Hex(id);
      }
    }
  }
  elf_end(elf);
  close(fd);
  return p;
}

std::vector<std::byte> Code(size_t n, uint8_t seed) {
  std::vector<std::byte> code(n);
  for (size_t i = 0; i < n; ++i) code[i] = static_cast<std::byte>(seed + i * 7);
  return code;
}

std::string Write(const std::string& name, const JitElfTarget& target, const JitFunction& f) {
  std::vector<std::byte> bytes;
  BuildJitElf(target, f, bytes);
  std::string path = TempPath(name);
  absl::StatusOr<struct stat> st = WriteWholeFile(path, bytes);
  EXPECT_TRUE(st.ok()) << st.status();
  if (st.ok()) {
    EXPECT_EQ(static_cast<size_t>(st->st_size), bytes.size());
  }
  return path;
}

TEST(JitElfWriter, OneFunctionLayoutAsPerfWritesIt) {
  std::vector<std::byte> code = Code(100, 1);
  JitFunction f{.name = "JS:*fib /tmp/bench.js:1:13", .code = code};
  std::string path = Write("layout", JitElfTarget{}, f);
  Parsed p = Parse(path);
  EXPECT_EQ(p.ehdr.e_type, ET_DYN);
  EXPECT_EQ(p.ehdr.e_machine, EM_X86_64);
  EXPECT_EQ(p.ehdr.e_entry, 0x80u);
  ASSERT_EQ(p.phdrs.size(), 1u);
  EXPECT_EQ(p.phdrs[0].p_type, PT_LOAD);
  EXPECT_EQ(p.phdrs[0].p_offset, 0x80u);
  EXPECT_EQ(p.phdrs[0].p_vaddr, 0x80u);
  EXPECT_EQ(p.phdrs[0].p_filesz, 100u);
  EXPECT_EQ(p.phdrs[0].p_flags, uint32_t{PF_R | PF_X});
  ASSERT_TRUE(p.sections.count(".text"));
  EXPECT_EQ(p.sections[".text"].sh_offset, 0x80u);
  EXPECT_EQ(p.sections[".text"].sh_addr, 0x80u);
  EXPECT_EQ(p.contents[".text"], code);
  EXPECT_FALSE(p.sections.count(".eh_frame"));
  EXPECT_FALSE(p.sections.count(".debug_line"));
  ASSERT_EQ(p.symbols.size(), 1u);
  EXPECT_EQ(p.symbols[0].first, "JS:*fib /tmp/bench.js:1:13");
  EXPECT_EQ(p.symbols[0].second.st_value, 0x80u);
  EXPECT_EQ(p.symbols[0].second.st_size, 100u);
  EXPECT_EQ(GELF_ST_TYPE(p.symbols[0].second.st_info), STT_FUNC);
  EXPECT_EQ(p.sections[".symtab"].sh_info, 2u);  // one past the last local symbol
  EXPECT_EQ(p.build_id.size(), 40u);
  unlink(path.c_str());
}

TEST(JitElfWriter, BuildIdIsAHashOfTheContent) {
  std::vector<std::byte> code = Code(64, 3);
  JitFunction f{.name = "f", .code = code};
  std::vector<std::byte> a, b, c, d;
  BuildJitElf(JitElfTarget{}, f, a);
  BuildJitElf(JitElfTarget{}, f, b);
  EXPECT_EQ(a, b);  // deterministic, byte for byte
  JitFunction renamed = f;
  renamed.name = "g";
  BuildJitElf(JitElfTarget{}, renamed, c);
  std::vector<std::byte> other_code = Code(64, 4);
  JitFunction recoded = f;
  recoded.code = other_code;
  BuildJitElf(JitElfTarget{}, recoded, d);

  std::string pa = TempPath("ida"), pc = TempPath("idc"), pd = TempPath("idd");
  ASSERT_TRUE(WriteWholeFile(pa, a).ok());
  ASSERT_TRUE(WriteWholeFile(pc, c).ok());
  ASSERT_TRUE(WriteWholeFile(pd, d).ok());
  std::string id_a = Parse(pa).build_id, id_c = Parse(pc).build_id, id_d = Parse(pd).build_id;
  EXPECT_EQ(id_a.size(), 40u);
  EXPECT_NE(id_a, id_c);
  EXPECT_NE(id_a, id_d);
  EXPECT_NE(id_c, id_d);
  unlink(pa.c_str());
  unlink(pc.c_str());
  unlink(pd.c_str());
}

TEST(JitElfWriter, UnwindingTablesFollowTheCodeAtAnEightByteBoundary) {
  std::vector<std::byte> code = Code(21, 9);
  std::vector<std::byte> eh_frame = Code(24, 100), hdr = Code(20, 200);
  JitFunction f{
      .name = "u", .code = code, .has_unwinding = true, .eh_frame = eh_frame, .eh_frame_hdr = hdr};
  std::string path = Write("unwind", JitElfTarget{}, f);
  Parsed p = Parse(path);
  ASSERT_TRUE(p.sections.count(".eh_frame"));
  EXPECT_EQ(p.sections[".eh_frame"].sh_addr, 0x80u + 24);  // ALIGN_8(0x80 + 21)
  EXPECT_EQ(p.sections[".eh_frame"].sh_offset, 0x80u + 24);
  EXPECT_EQ(p.contents[".eh_frame"], eh_frame);
  EXPECT_EQ(p.sections[".eh_frame_hdr"].sh_addr, 0x80u + 24 + 24);
  EXPECT_EQ(p.contents[".eh_frame_hdr"], hdr);
  EXPECT_EQ(p.phdrs[0].p_filesz, 24u + 24 + 20);
  unlink(path.c_str());
}

const std::vector<JitLine>& Lines() {
  static const std::vector<JitLine> lines = {
      {.offset = 0x10, .line = 12, .column = 5, .file = "/src/app.js"},
      {.offset = 0, .line = 10, .column = 1, .file = "/src/app.js"},
      {.offset = 0x30, .line = 7, .column = 3, .file = "/src/lib.js"},
      {.offset = 0x1000, .line = 99, .column = 0, .file = "/src/outside.js"},  // left out
  };
  return lines;
}

TEST(JitElfWriter, LinesAreFoundByGnuAndLlvmTools) {
  std::vector<std::byte> code = Code(0x40, 0);
  JitFunction f{.name = "JS:*work", .code = code, .lines = Lines()};
  std::string path = Write("lines", JitElfTarget{}, f);

  std::optional<std::string> readelf = RunCommand("readelf -a -W " + path);
  ASSERT_TRUE(readelf.has_value());
  EXPECT_THAT(*readelf, Not(HasSubstr("Warning")));
  EXPECT_THAT(*readelf, HasSubstr("JS:*work"));
  EXPECT_THAT(*readelf, HasSubstr("NT_GNU_BUILD_ID"));

  std::optional<std::string> decoded = RunCommand("readelf --debug-dump=decodedline " + path);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_THAT(*decoded, HasSubstr("app.js"));
  EXPECT_THAT(*decoded, Not(HasSubstr("outside.js")));

  // 0x80 + 0x18 is inside the row at 0x90 (line 12); 0x80 + 0x35 in line 7.
  std::optional<std::string> gnu = RunCommand("addr2line -f -e " + path + " 0x98 0xb5 0x84");
  ASSERT_TRUE(gnu.has_value());
  EXPECT_EQ(*gnu, "JS:*work\n/src/app.js:12\nJS:*work\n/src/lib.js:7\nJS:*work\n/src/app.js:10\n");

  if (!Have("llvm-symbolizer")) GTEST_SKIP() << "llvm-symbolizer is not installed";
  std::optional<std::string> llvm = RunCommand("llvm-symbolizer --obj=" + path + " 0x98 0xb5");
  ASSERT_TRUE(llvm.has_value());
  EXPECT_EQ(*llvm, "JS:*work\n/src/app.js:12:5\n\nJS:*work\n/src/lib.js:7:3\n\n");
  std::optional<std::string> verify = RunCommand("llvm-dwarfdump --verify " + path);
  ASSERT_TRUE(verify.has_value()) << "llvm-dwarfdump --verify failed";
  EXPECT_THAT(*verify, HasSubstr("No errors."));
  unlink(path.c_str());
}

TEST(JitElfWriter, OtherClassesAndByteOrders) {
  std::vector<std::byte> code = Code(32, 5);
  JitFunction f{.name = "other", .code = code, .lines = Lines()};
  struct Case {
    uint32_t machine;
    bool big_endian;
    const char* readelf_machine;
    const char* data;
  };
  for (const Case& c : {Case{EM_386, false, "Intel 80386", "2's complement, little endian"},
                        Case{EM_PPC64, true, "PowerPC64", "2's complement, big endian"},
                        Case{EM_AARCH64, false, "AArch64", "2's complement, little endian"},
                        Case{EM_S390, true, "IBM S/390", "2's complement, big endian"}}) {
    JitElfTarget target = JitElfTarget::ForMachine(c.machine, c.big_endian);
    std::string path = Write("class", target, f);
    Parsed p = Parse(path);
    EXPECT_EQ(p.ehdr.e_machine, c.machine);
    EXPECT_EQ(p.sections[".text"].sh_offset, target.text_offset());
    EXPECT_EQ(p.contents[".text"], code);
    ASSERT_EQ(p.symbols.size(), 1u);
    EXPECT_EQ(p.symbols[0].second.st_value, target.text_offset());
    std::optional<std::string> readelf = RunCommand("readelf -h -s -n -W " + path);
    ASSERT_TRUE(readelf.has_value());
    EXPECT_THAT(*readelf, HasSubstr(c.readelf_machine));
    EXPECT_THAT(*readelf, HasSubstr(c.data));
    EXPECT_THAT(*readelf, Not(HasSubstr("Warning")));
    std::optional<std::string> lines = RunCommand(
        "addr2line -e " + path + " 0x" + absl::StrCat(absl::Hex(target.text_offset() + 0x12)));
    ASSERT_TRUE(lines.has_value());
    EXPECT_EQ(*lines, "/src/app.js:12\n") << c.readelf_machine;
    unlink(path.c_str());
  }
}

TEST(MergedJitElfWriter, FunctionsAtDistinctAlignedOffsets) {
  std::string path = TempPath("merged");
  absl::StatusOr<std::unique_ptr<MergedJitElfWriter>> writer =
      MergedJitElfWriter::Create(path, JitElfTarget{});
  ASSERT_TRUE(writer.ok()) << writer.status();
  std::vector<std::vector<std::byte>> codes;
  std::vector<uint64_t> addresses;
  for (int i = 0; i < 3; ++i) {
    codes.push_back(Code(20 + i * 9, static_cast<uint8_t>(i)));
    std::string name = "fn" + std::to_string(i);
    JitFunction f{.name = name, .code = codes.back()};
    if (i == 1) f.lines = Lines();
    absl::StatusOr<uint64_t> address = (*writer)->Add(f);
    ASSERT_TRUE(address.ok());
    addresses.push_back(*address);
  }
  EXPECT_EQ(access(path.c_str(), F_OK), -1) << "visible before Finish";
  absl::StatusOr<struct stat> st = (*writer)->Finish();
  ASSERT_TRUE(st.ok()) << st.status();
  EXPECT_EQ(addresses, (std::vector<uint64_t>{0x80, 0xa0, 0xc0}));

  Parsed p = Parse(path);
  ASSERT_EQ(p.symbols.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(p.symbols[i].first, "fn" + std::to_string(i));
    EXPECT_EQ(p.symbols[i].second.st_value, addresses[i]);
    EXPECT_EQ(p.symbols[i].second.st_size, codes[i].size());
  }
  EXPECT_EQ(p.sections[".text"].sh_offset, 0x80u);
  EXPECT_EQ(p.sections[".text"].sh_size, 0xc0u + 38 - 0x80);
  EXPECT_EQ(p.phdrs[0].p_filesz, 0xc0u + 38 - 0x80);
  std::optional<std::string> gnu = RunCommand("addr2line -f -e " + path + " 0x85 0xb0 0xc1");
  ASSERT_TRUE(gnu.has_value());
  EXPECT_EQ(*gnu, "fn0\n??:?\nfn1\n/src/app.js:12\nfn2\n??:?\n");
  std::optional<std::string> readelf = RunCommand("readelf -a -W " + path);
  ASSERT_TRUE(readelf.has_value());
  EXPECT_THAT(*readelf, Not(HasSubstr("Warning")));
  unlink(path.c_str());
}

// The tables of every function that has them go into one .eh_frame, each FDE
// at its function's address in the file; GNU, LLVM and elfutils tools read
// them.
TEST(MergedJitElfWriter, OneEhFrameForEveryFunctionsTables) {
  std::string path = TempPath("merged_unwind");
  absl::StatusOr<std::unique_ptr<MergedJitElfWriter>> writer =
      MergedJitElfWriter::Create(path, JitElfTarget{});
  ASSERT_TRUE(writer.ok()) << writer.status();
  std::vector<std::vector<std::byte>> codes, tables;
  std::vector<uint64_t> addresses;
  for (int i = 0; i < 4; ++i) {
    codes.push_back(Code(0x40 + i * 0x21, static_cast<uint8_t>(i)));
    tables.push_back(::perftk::testing::V8Table(codes.back().size(), {.version = 1}));
    std::string name = "fn" + std::to_string(i);
    // fn2 has no tables; fn3 came with empty ones (as V8 says "none").
    JitFunction f{.name = name, .code = codes.back(), .has_unwinding = i != 2};
    if (i < 2) f.eh_frame = tables.back();
    absl::StatusOr<uint64_t> address = (*writer)->Add(f);
    ASSERT_TRUE(address.ok()) << address.status();
    addresses.push_back(*address);
  }
  ASSERT_TRUE((*writer)->Finish().ok());
  Parsed p = Parse(path);
  ASSERT_TRUE(p.sections.count(".eh_frame"));
  ASSERT_TRUE(p.sections.count(".eh_frame_hdr"));
  uint64_t code_end = addresses[3] + codes[3].size();
  EXPECT_EQ(p.sections[".eh_frame"].sh_addr, base::AlignUp(code_end, 8));
  EXPECT_EQ(p.sections[".eh_frame_hdr"].sh_addr,
            p.sections[".eh_frame"].sh_addr + p.sections[".eh_frame"].sh_size);
  EXPECT_EQ(p.phdrs[0].p_filesz, p.sections[".eh_frame_hdr"].sh_addr + 8 - 0x80);

  std::optional<std::string> gnu = RunCommand("readelf --debug-dump=frames " + path);
  ASSERT_TRUE(gnu.has_value());
  EXPECT_THAT(*gnu, Not(HasSubstr("Warning")));
  char want[128];
  for (int i = 0; i < 2; ++i) {
    std::snprintf(want, sizeof(want), "FDE cie=%08zx pc=%016llx..%016llx", size_t{0x2c} * i,
                  static_cast<unsigned long long>(addresses[i]),
                  static_cast<unsigned long long>(addresses[i] + codes[i].size() - 2));
    EXPECT_THAT(*gnu, HasSubstr(want)) << *gnu;
  }
  if (Have("llvm-dwarfdump")) {
    std::optional<std::string> llvm = RunCommand("llvm-dwarfdump --eh-frame " + path);
    ASSERT_TRUE(llvm.has_value());
    EXPECT_THAT(*llvm, Not(HasSubstr("error")));
    EXPECT_THAT(*llvm, Not(HasSubstr("WARNING")));
    std::snprintf(want, sizeof(want), "pc=%08llx...%08llx",
                  static_cast<unsigned long long>(addresses[1]),
                  static_cast<unsigned long long>(addresses[1] + codes[1].size() - 2));
    EXPECT_THAT(*llvm, HasSubstr(want)) << *llvm;
  }
  if (Have("eu-readelf")) {
    std::optional<std::string> eu = RunCommand("eu-readelf --debug-dump=frames -e " + path);
    ASSERT_TRUE(eu.has_value());
    EXPECT_THAT(*eu, HasSubstr("fde_count_enc:    0xff (omit)"));
    EXPECT_THAT(*eu, Not(HasSubstr("invalid")));
    // Each FDE's initial location is its function's symbol.
    EXPECT_THAT(*eu, HasSubstr("<fn0> (offset: 0x80)"));
    EXPECT_THAT(*eu, HasSubstr("<fn1> (offset: 0xc0)"));
  }
  unlink(path.c_str());
}

TEST(MergedJitElfWriter, TablesItCannotMergeAddNothing) {
  std::string path = TempPath("merged_refused");
  absl::StatusOr<std::unique_ptr<MergedJitElfWriter>> writer =
      MergedJitElfWriter::Create(path, JitElfTarget{});
  ASSERT_TRUE(writer.ok());
  std::vector<std::byte> code = Code(0x40, 1);
  std::vector<std::byte> table = ::perftk::testing::V8Table(0x40, {.version = 4});
  absl::StatusOr<uint64_t> refused = (*writer)->Add(
      JitFunction{.name = "odd", .code = code, .has_unwinding = true, .eh_frame = table});
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("unwinding tables of odd: .eh_frame offset 0"));
  EXPECT_EQ((*writer)->functions(), 0u);
  absl::StatusOr<uint64_t> next = (*writer)->Add(JitFunction{.name = "plain", .code = code});
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(*next, 0x80u) << "the refused code took no room";
  ASSERT_TRUE((*writer)->Finish().ok());
  Parsed p = Parse(path);
  EXPECT_FALSE(p.sections.count(".eh_frame")) << "no function came with tables it kept";
  unlink(path.c_str());
}

TEST(MergedJitElfWriter, NothingIsLeftWithoutFinish) {
  std::string path = TempPath("abandoned");
  {
    absl::StatusOr<std::unique_ptr<MergedJitElfWriter>> writer =
        MergedJitElfWriter::Create(path, JitElfTarget{});
    ASSERT_TRUE(writer.ok());
    std::vector<std::byte> code = Code(8, 0);
    ASSERT_TRUE((*writer)->Add(JitFunction{.name = "x", .code = code}).ok());
  }
  EXPECT_EQ(access(path.c_str(), F_OK), -1);
  EXPECT_EQ(access((path + ".tmp." + std::to_string(getpid())).c_str(), F_OK), -1);
}

}  // namespace
}  // namespace perftk::elf
