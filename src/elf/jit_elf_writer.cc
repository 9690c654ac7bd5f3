#include "elf/jit_elf_writer.h"

#include <dwarf.h>
#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/write_all.h"
#include "elf/sha1.h"

namespace perftk::elf {
namespace {

constexpr uint64_t kFunctionAlign = 16;
constexpr size_t kRegionFlushSize = 1 << 20;
constexpr size_t kBuildIdSize = 20;

// Integers in the target's byte order, addresses in its class.
class Emitter {
 public:
  Emitter(const JitElfTarget& target, std::vector<std::byte>& out) : target_(target), out_(out) {}
  void U8(uint64_t v) { Put(1, v); }
  void U16(uint64_t v) { Put(2, v); }
  void U32(uint64_t v) { Put(4, v); }
  void U64(uint64_t v) { Put(8, v); }
  void Addr(uint64_t v) { Put(target_.is_64 ? 8 : 4, v); }
  void Bytes_(Bytes b) { out_.insert(out_.end(), b.begin(), b.end()); }
  void String(absl::string_view s) {
    Bytes_(AsBytes(s.data(), s.size()));
    U8(0);
  }
  void Uleb(uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      U8(byte | (v ? 0x80 : 0));
    } while (v);
  }
  void Sleb(int64_t v) {
    while (true) {
      uint8_t byte = v & 0x7f;
      v >>= 7;  // arithmetic shift
      bool done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
      U8(byte | (done ? 0 : 0x80));
      if (done) return;
    }
  }
  void PadTo(uint64_t alignment) {
    while (out_.size() % alignment != 0) out_.push_back(std::byte{0});
  }
  void Patch32(size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) {
      int shift = target_.big_endian ? 8 * (3 - i) : 8 * i;
      out_[at + i] = static_cast<std::byte>((v >> shift) & 0xff);
    }
  }
  size_t size() const { return out_.size(); }

 private:
  void Put(int width, uint64_t v) {
    for (int i = 0; i < width; ++i) {
      int shift = target_.big_endian ? 8 * (width - 1 - i) : 8 * i;
      out_.push_back(static_cast<std::byte>((v >> shift) & 0xff));
    }
  }

  const JitElfTarget& target_;
  std::vector<std::byte>& out_;
};

struct SectionHeader {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t addr = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t link = 0;
  uint32_t info = 0;
  uint64_t align = 1;
  uint64_t entsize = 0;
};

}  // namespace

JitElfTarget JitElfTarget::ForMachine(uint32_t elf_machine, bool big_endian) {
  JitElfTarget target;
  target.machine = static_cast<uint16_t>(elf_machine);
  target.is_64 = !(elf_machine == EM_386 || elf_machine == EM_ARM || elf_machine == EM_PPC);
  target.big_endian = big_endian;
  return target;
}

// Lays out the parts of a file after the loaded region: keeps the symbols,
// names and line programs of the functions placed so far, and the SHA-1 of
// every byte of the loaded region, then composes the header and the tail.
class JitElfComposer {
 public:
  explicit JitElfComposer(const JitElfTarget& target)
      : target_(target), region_end_(target.text_offset()) {
    strtab_.push_back(std::byte{0});
  }

  size_t functions() const { return symbols_.size(); }
  uint64_t region_end() const { return region_end_; }
  const Sha1::Digest& build_id() const { return build_id_; }
  const JitElfTarget& target() const { return target_; }

  // Appends the function's code to `region` (after alignment padding) and
  // returns its address.
  uint64_t AddCode(const JitFunction& function, uint64_t alignment,
                   std::vector<std::byte>& region) {
    uint64_t address = AlignUp(region_end_, alignment);
    AppendRegion(region, Bytes(), address - region_end_);
    AppendRegion(region, function.code, 0);
    if (symbols_.empty()) text_start_ = address;
    text_end_ = region_end_;
    symbols_.push_back(Symbol{static_cast<uint32_t>(strtab_.size()), address,
                              function.code.size()});
    AppendBytes(strtab_, AsBytes(function.name.data(), function.name.size()));
    strtab_.push_back(std::byte{0});
    AddLines(function, address);
    return address;
  }

  // Places .eh_frame then .eh_frame_hdr at the next 8-byte boundary.
  void AddUnwinding(Bytes eh_frame, Bytes eh_frame_hdr, std::vector<std::byte>& region) {
    uint64_t start = AlignUp(region_end_, 8);
    AppendRegion(region, Bytes(), start - region_end_);
    eh_frame_ = SectionHeader{".eh_frame", SHT_PROGBITS, SHF_ALLOC, start, start,
                              eh_frame.size(), 0, 0, 8, 0};
    AppendRegion(region, eh_frame, 0);
    eh_frame_hdr_ = SectionHeader{".eh_frame_hdr", SHT_PROGBITS, SHF_ALLOC, region_end_,
                                  region_end_, eh_frame_hdr.size(), 0, 0, 4, 0};
    AppendRegion(region, eh_frame_hdr, 0);
    has_unwinding_ = true;
  }

  // The bytes before the region (ELF header, program header, padding) and
  // after it (other sections, section headers).
  void Compose(std::vector<std::byte>& head, std::vector<std::byte>& tail) {
    std::vector<SectionHeader> sections;
    sections.push_back(SectionHeader{});
    sections.push_back(SectionHeader{".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR,
                                     text_start_, text_start_, text_end_ - text_start_, 0, 0,
                                     kFunctionAlign, 0});
    if (has_unwinding_) {
      sections.push_back(eh_frame_);
      sections.push_back(eh_frame_hdr_);
    }

    std::vector<std::byte> symtab = SymbolTable();
    std::vector<std::byte> line, info, abbrev;
    bool debug = !lines_.empty();
    if (debug) DebugSections(line, info, abbrev);
    hash_.Update(symtab);
    hash_.Update(strtab_);
    hash_.Update(line);
    hash_.Update(info);
    hash_.Update(abbrev);
    build_id_ = hash_.Finish();
    const Sha1::Digest& build_id = build_id_;

    Emitter t(target_, tail);
    tail.clear();
    uint64_t base = region_end_;
    auto place = [&](SectionHeader header, Bytes bytes) {
      AlignTail(t, base, header.align);
      header.offset = base + t.size();
      header.size = bytes.size();
      t.Bytes_(bytes);
      sections.push_back(std::move(header));
    };
    std::vector<std::byte> note;
    {
      Emitter n(target_, note);
      n.U32(4);
      n.U32(kBuildIdSize);
      n.U32(NT_GNU_BUILD_ID);
      n.Bytes_(AsBytes("GNU", 4));
      n.Bytes_(AsBytes(build_id.data(), build_id.size()));
    }
    place(SectionHeader{".note.gnu.build-id", SHT_NOTE, 0, 0, 0, 0, 0, 0, 4, 0}, note);
    AlignTail(t, base, 8);
    size_t symtab_index = sections.size();
    uint64_t sym_size = target_.is_64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
    place(SectionHeader{".symtab", SHT_SYMTAB, 0, 0, 0, 0,
                        static_cast<uint32_t>(symtab_index + 1),
                        static_cast<uint32_t>(symbols_.size() + 1), 8, sym_size},
          symtab);
    place(SectionHeader{".strtab", SHT_STRTAB, 0, 0, 0, 0, 0, 0, 1, 0}, strtab_);
    if (debug) {
      place(SectionHeader{".debug_line", SHT_PROGBITS, 0, 0, 0, 0, 0, 0, 1, 0}, line);
      place(SectionHeader{".debug_info", SHT_PROGBITS, 0, 0, 0, 0, 0, 0, 1, 0}, info);
      place(SectionHeader{".debug_abbrev", SHT_PROGBITS, 0, 0, 0, 0, 0, 0, 1, 0}, abbrev);
    }
    std::vector<std::byte> shstrtab{std::byte{0}};
    std::vector<uint32_t> name_offsets;
    sections.push_back(SectionHeader{".shstrtab", SHT_STRTAB, 0, 0, 0, 0, 0, 0, 1, 0});
    for (const SectionHeader& s : sections) {
      if (s.name.empty()) {
        name_offsets.push_back(0);
        continue;
      }
      name_offsets.push_back(static_cast<uint32_t>(shstrtab.size()));
      AppendBytes(shstrtab, AsBytes(s.name.data(), s.name.size()));
      shstrtab.push_back(std::byte{0});
    }
    SectionHeader shstr = sections.back();
    sections.pop_back();
    place(shstr, shstrtab);
    size_t shstrndx = sections.size() - 1;

    AlignTail(t, base, 8);
    uint64_t shoff = base + t.size();
    for (size_t i = 0; i < sections.size(); ++i) SectionHeaderBytes(t, sections[i], name_offsets[i]);

    head.clear();
    Emitter h(target_, head);
    FileHeader(h, shoff, sections.size(), shstrndx);
    ProgramHeader(h);
    h.PadTo(target_.text_offset());
  }

 private:
  struct Symbol {
    uint32_t name;
    uint64_t value;
    uint64_t size;
  };
  struct Row {
    uint64_t offset;
    uint32_t file;
    uint32_t line;
    uint32_t column;
  };
  struct Sequence {
    uint64_t address;
    uint64_t size;
    std::vector<Row> rows;
  };

  void AppendRegion(std::vector<std::byte>& region, Bytes bytes, uint64_t zeros) {
    size_t at = region.size();
    region.resize(at + zeros);
    AppendBytes(region, bytes);
    hash_.Update(Bytes(region).subspan(at));
    region_end_ += zeros + bytes.size();
  }

  static void AlignTail(Emitter& t, uint64_t base, uint64_t alignment) {
    while ((base + t.size()) % alignment != 0) t.U8(0);
  }

  uint32_t FileIndex(absl::string_view file) {
    auto [it, inserted] = file_index_.try_emplace(std::string(file), files_.size() + 1);
    if (inserted) files_.emplace_back(file);
    return it->second;
  }

  void AddLines(const JitFunction& function, uint64_t address) {
    Sequence sequence{address, function.code.size(), {}};
    for (const JitLine& line : function.lines) {
      if (line.offset >= function.code.size()) continue;
      sequence.rows.push_back(Row{line.offset, FileIndex(line.file), line.line, line.column});
    }
    if (sequence.rows.empty()) return;
    std::stable_sort(sequence.rows.begin(), sequence.rows.end(),
                     [](const Row& a, const Row& b) { return a.offset < b.offset; });
    lines_.push_back(std::move(sequence));
    line_functions_.push_back(symbols_.size() - 1);
  }

  std::vector<std::byte> SymbolTable() const {
    std::vector<std::byte> out;
    Emitter e(target_, out);
    auto symbol = [&](uint32_t name, uint64_t value, uint64_t size, uint8_t info, uint16_t shndx) {
      if (target_.is_64) {
        e.U32(name);
        e.U8(info);
        e.U8(STV_DEFAULT);
        e.U16(shndx);
        e.U64(value);
        e.U64(size);
      } else {
        e.U32(name);
        e.U32(value);
        e.U32(size);
        e.U8(info);
        e.U8(STV_DEFAULT);
        e.U16(shndx);
      }
    };
    symbol(0, 0, 0, 0, SHN_UNDEF);
    for (const Symbol& s : symbols_) {
      symbol(s.name, s.value, s.size, ELF64_ST_INFO(STB_LOCAL, STT_FUNC), 1);
    }
    return out;
  }

  // DWARF 4: one line program with a sequence per function, one compile
  // unit covering .text with a subprogram per function that has lines.
  void DebugSections(std::vector<std::byte>& line, std::vector<std::byte>& info,
                     std::vector<std::byte>& abbrev) {
    Emitter l(target_, line);
    l.U32(0);  // unit_length, patched
    l.U16(4);
    size_t header_length_at = l.size();
    l.U32(0);  // header_length, patched
    l.U8(1);   // minimum_instruction_length
    l.U8(1);   // maximum_operations_per_instruction
    l.U8(1);   // default_is_stmt
    l.U8(static_cast<uint8_t>(-5));  // line_base
    l.U8(14);                        // line_range
    l.U8(13);                        // opcode_base
    for (int n : {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1}) l.U8(n);
    l.U8(0);  // no include directories
    for (const std::string& file : files_) {
      l.String(file);
      l.Uleb(0);
      l.Uleb(0);
      l.Uleb(0);
    }
    l.U8(0);
    l.Patch32(header_length_at, static_cast<uint32_t>(l.size() - header_length_at - 4));
    uint8_t address_size = target_.is_64 ? 8 : 4;
    for (const Sequence& sequence : lines_) {
      l.U8(0);
      l.Uleb(1 + address_size);
      l.U8(DW_LNE_set_address);
      l.Addr(sequence.address);
      uint64_t offset = 0;
      uint32_t file = 1, line_no = 1, column = 0;
      for (const Row& row : sequence.rows) {
        if (row.file != file) {
          l.U8(DW_LNS_set_file);
          l.Uleb(row.file);
          file = row.file;
        }
        if (row.column != column) {
          l.U8(DW_LNS_set_column);
          l.Uleb(row.column);
          column = row.column;
        }
        if (row.offset != offset) {
          l.U8(DW_LNS_advance_pc);
          l.Uleb(row.offset - offset);
          offset = row.offset;
        }
        if (row.line != line_no) {
          l.U8(DW_LNS_advance_line);
          l.Sleb(static_cast<int64_t>(row.line) - static_cast<int64_t>(line_no));
          line_no = row.line;
        }
        l.U8(DW_LNS_copy);
      }
      if (sequence.size > offset) {
        l.U8(DW_LNS_advance_pc);
        l.Uleb(sequence.size - offset);
      }
      l.U8(0);
      l.Uleb(1);
      l.U8(DW_LNE_end_sequence);
    }
    l.Patch32(0, static_cast<uint32_t>(l.size() - 4));

    Emitter a(target_, abbrev);
    a.Uleb(1);
    a.Uleb(DW_TAG_compile_unit);
    a.U8(DW_CHILDREN_yes);
    for (auto [attr, form] : {std::pair{DW_AT_producer, DW_FORM_string},
                              {DW_AT_name, DW_FORM_string},
                              {DW_AT_stmt_list, DW_FORM_sec_offset},
                              {DW_AT_low_pc, DW_FORM_addr},
                              {DW_AT_high_pc, DW_FORM_data8}}) {
      a.Uleb(attr);
      a.Uleb(form);
    }
    a.U8(0);
    a.U8(0);
    a.Uleb(2);
    a.Uleb(DW_TAG_subprogram);
    a.U8(DW_CHILDREN_no);
    for (auto [attr, form] : {std::pair{DW_AT_name, DW_FORM_string},
                              {DW_AT_low_pc, DW_FORM_addr},
                              {DW_AT_high_pc, DW_FORM_data8}}) {
      a.Uleb(attr);
      a.Uleb(form);
    }
    a.U8(0);
    a.U8(0);
    a.U8(0);

    Emitter d(target_, info);
    d.U32(0);  // unit_length, patched
    d.U16(4);
    d.U32(0);  // abbrev offset
    d.U8(address_size);
    d.Uleb(1);
    d.String("perftk jit");
    d.String(files_.front());
    d.U32(0);  // stmt_list
    d.Addr(text_start_);
    d.U64(text_end_ - text_start_);
    for (size_t index : line_functions_) {
      const Symbol& s = symbols_[index];
      d.Uleb(2);
      d.String(reinterpret_cast<const char*>(strtab_.data() + s.name));
      d.Addr(s.value);
      d.U64(s.size);
    }
    d.U8(0);
    d.Patch32(0, static_cast<uint32_t>(d.size() - 4));
  }

  void FileHeader(Emitter& h, uint64_t shoff, size_t shnum, size_t shstrndx) const {
    h.U8(ELFMAG0);
    h.U8(ELFMAG1);
    h.U8(ELFMAG2);
    h.U8(ELFMAG3);
    h.U8(target_.is_64 ? ELFCLASS64 : ELFCLASS32);
    h.U8(target_.big_endian ? ELFDATA2MSB : ELFDATA2LSB);
    h.U8(EV_CURRENT);
    for (int i = 7; i < EI_NIDENT; ++i) h.U8(0);
    h.U16(ET_DYN);
    h.U16(target_.machine);
    h.U32(EV_CURRENT);
    h.Addr(target_.text_offset());  // e_entry
    h.Addr(target_.is_64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr));  // e_phoff
    h.Addr(shoff);
    h.U32(0);  // e_flags
    h.U16(target_.is_64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr));
    h.U16(target_.is_64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr));
    h.U16(1);
    h.U16(target_.is_64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr));
    h.U16(shnum);
    h.U16(shstrndx);
  }

  void ProgramHeader(Emitter& h) const {
    uint64_t start = target_.text_offset();
    uint64_t size = region_end_ - start;
    if (target_.is_64) {
      h.U32(PT_LOAD);
      h.U32(PF_R | PF_X);
      h.U64(start);
      h.U64(start);
      h.U64(start);
      h.U64(size);
      h.U64(size);
      h.U64(kFunctionAlign);
    } else {
      h.U32(PT_LOAD);
      h.U32(start);
      h.U32(start);
      h.U32(start);
      h.U32(size);
      h.U32(size);
      h.U32(PF_R | PF_X);
      h.U32(kFunctionAlign);
    }
  }

  void SectionHeaderBytes(Emitter& t, const SectionHeader& s, uint32_t name) const {
    t.U32(name);
    t.U32(s.type);
    t.Addr(s.flags);
    t.Addr(s.addr);
    t.Addr(s.offset);
    t.Addr(s.size);
    t.U32(s.link);
    t.U32(s.info);
    t.Addr(s.align);
    t.Addr(s.entsize);
  }

  JitElfTarget target_;
  uint64_t region_end_;
  uint64_t text_start_ = 0;
  uint64_t text_end_ = 0;
  bool has_unwinding_ = false;
  SectionHeader eh_frame_, eh_frame_hdr_;
  std::vector<Symbol> symbols_;
  std::vector<std::byte> strtab_;
  std::vector<Sequence> lines_;
  std::vector<size_t> line_functions_;
  std::vector<std::string> files_;
  absl::flat_hash_map<std::string, uint32_t> file_index_;
  Sha1 hash_;
  Sha1::Digest build_id_{};
};

Sha1::Digest BuildJitElf(const JitElfTarget& target, const JitFunction& function,
                         std::vector<std::byte>& out) {
  JitElfComposer composer(target);
  std::vector<std::byte> region;
  region.reserve(function.code.size() + function.eh_frame.size() +
                 function.eh_frame_hdr.size() + 16);
  composer.AddCode(function, kFunctionAlign, region);
  if (function.has_unwinding) composer.AddUnwinding(function.eh_frame, function.eh_frame_hdr, region);
  std::vector<std::byte> tail;
  composer.Compose(out, tail);
  out.reserve(out.size() + region.size() + tail.size());
  AppendBytes(out, region);
  AppendBytes(out, tail);
  return composer.build_id();
}

namespace {

absl::Status WriteAll(int fd, Bytes bytes, const std::string& path) {
  if (int error = base::WriteAll(fd, bytes); error != 0) {
    return absl::InternalError(absl::StrCat(path, ": write failed: ", std::strerror(error)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<struct stat> WriteAndClose(base::GeneratedFile& file, Bytes bytes) {
  if (absl::Status s = file.Write(bytes); !s.ok()) return s;
  return file.Close();
}

absl::StatusOr<struct stat> WriteWholeFile(const std::string& path, Bytes bytes) {
  absl::StatusOr<base::GeneratedFile> file = base::GeneratedFile::Create(path);
  if (!file.ok()) return file.status();
  absl::StatusOr<struct stat> st = WriteAndClose(*file, bytes);
  if (st.ok()) file->TakePending().Keep();
  return st;
}

MergedJitElfWriter::MergedJitElfWriter(std::string path, std::string temp_path, int fd,
                                       base::PendingFile pending,
                                       std::unique_ptr<JitElfComposer> composer)
    : path_(std::move(path)), temp_path_(std::move(temp_path)), fd_(fd),
      pending_(std::move(pending)), composer_(std::move(composer)),
      unwinding_(composer_->target().is_64, composer_->target().big_endian) {}

MergedJitElfWriter::~MergedJitElfWriter() {
  if (fd_ >= 0) close(fd_);
  // pending_, if still listed, removes the unfinished or unkept file.
}

absl::StatusOr<std::unique_ptr<MergedJitElfWriter>> MergedJitElfWriter::Create(
    const std::string& path, const JitElfTarget& target) {
  std::string temp_path = absl::StrCat(path, ".tmp.", getpid());
  int fd = -1;
  absl::StatusOr<base::PendingFile> pending = base::PendingFile::CreateNew(temp_path, &fd);
  if (!pending.ok()) return pending.status();
  if (lseek(fd, static_cast<off_t>(target.text_offset()), SEEK_SET) < 0) {
    close(fd);
    return absl::InternalError(absl::StrCat(temp_path, ": seek failed: ", std::strerror(errno)));
  }
  return std::unique_ptr<MergedJitElfWriter>(
      new MergedJitElfWriter(path, std::move(temp_path), fd, std::move(*pending),
                             std::make_unique<JitElfComposer>(target)));
}

size_t MergedJitElfWriter::functions() const { return composer_->functions(); }

const Sha1::Digest& MergedJitElfWriter::build_id() const { return composer_->build_id(); }

absl::Status MergedJitElfWriter::FlushRegion() {
  absl::Status s = WriteAll(fd_, region_, temp_path_);
  region_.clear();
  return s;
}

absl::StatusOr<uint64_t> MergedJitElfWriter::Add(const JitFunction& function) {
  if (function.has_unwinding) {
    uint64_t next = AlignUp(composer_->region_end(), kFunctionAlign);
    if (absl::Status s = unwinding_.Add(function.eh_frame, function.code.size(), next); !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unwinding tables of ", function.name, ": ", s.message()));
    }
    has_unwinding_ = true;
  }
  uint64_t address = composer_->AddCode(function, kFunctionAlign, region_);
  if (region_.size() >= kRegionFlushSize) {
    if (absl::Status s = FlushRegion(); !s.ok()) return s;
  }
  return address;
}

absl::StatusOr<struct stat> MergedJitElfWriter::Finish() {
  if (composer_->functions() == 0) {
    return absl::FailedPreconditionError(absl::StrCat(path_, ": no functions to write"));
  }
  if (has_unwinding_) {
    std::vector<std::byte> eh_frame, eh_frame_hdr;
    if (absl::Status s = unwinding_.Write(AlignUp(composer_->region_end(), 8), eh_frame,
                                          eh_frame_hdr);
        !s.ok()) {
      return absl::OutOfRangeError(absl::StrCat(path_, ": ", s.message()));
    }
    composer_->AddUnwinding(eh_frame, eh_frame_hdr, region_);
  }
  if (absl::Status s = FlushRegion(); !s.ok()) return s;
  std::vector<std::byte> head, tail;
  composer_->Compose(head, tail);
  if (absl::Status s = WriteAll(fd_, tail, temp_path_); !s.ok()) return s;
  if (pwrite(fd_, head.data(), head.size(), 0) != static_cast<ssize_t>(head.size())) {
    return absl::InternalError(absl::StrCat(temp_path_, ": write failed: ", std::strerror(errno)));
  }
  struct stat st;
  if (fsync(fd_) != 0 || fstat(fd_, &st) != 0) {
    return absl::InternalError(absl::StrCat(temp_path_, ": sync failed: ", std::strerror(errno)));
  }
  int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0) {
    return absl::InternalError(absl::StrCat(temp_path_, ": close failed: ", std::strerror(errno)));
  }
  if (absl::Status s = pending_.RenameOver(path_); !s.ok()) return s;
  return st;
}

}  // namespace perftk::elf
