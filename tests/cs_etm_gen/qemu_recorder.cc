#include "qemu_recorder.h"

#include <elf.h>

#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cpu_tracer.h"
#include "cs_etm/a64_branch.h"
#include "etm_encoder.h"
#include "profile/bolt_text.h"
#include "profile/numbers.h"
#include "qemu_log.h"
#include "recording_writer.h"

namespace perftk::etm_gen {
namespace {

constexpr uint64_t kPage = 4096;

uint64_t PageDown(uint64_t v) { return v & ~(kPage - 1); }
uint64_t PageUp(uint64_t v) { return (v + kPage - 1) & ~(kPage - 1); }

// An ELF file read whole: what the recorder needs of it.
struct Image {
  std::string path;      // canonical host path, as MMAP2 records name it
  std::string build_id;  // raw bytes
  std::vector<uint8_t> bytes;
  uint16_t type = 0;
  uint64_t entry = 0;
  std::string interpreter;  // PT_INTERP
  struct Load {
    uint64_t offset, vaddr, file_size;
    bool exec;
  };
  std::vector<Load> loads;  // PT_LOAD, in program header order

  // The virtual address of a file offset (outside every load: at its
  // distance from the first).
  uint64_t Vaddr(uint64_t offset) const {
    for (const Load& load : loads) {
      if (offset >= load.offset && offset - load.offset < load.file_size) {
        return offset - load.offset + load.vaddr;
      }
    }
    return offset - loads.front().offset + loads.front().vaddr;
  }
  // AutoFDO's address of a file offset: its vaddr minus the first load's.
  uint64_t AutoFdoAddress(uint64_t offset) const { return Vaddr(offset) - loads.front().vaddr; }
};

template <typename T>
bool ReadAt(const std::vector<uint8_t>& bytes, uint64_t offset, T* out) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return false;
  std::memcpy(out, bytes.data() + offset, sizeof(T));
  return true;
}

absl::StatusOr<std::unique_ptr<Image>> LoadImage(const std::string& host_path) {
  std::error_code error;
  std::filesystem::path canonical = std::filesystem::canonical(host_path, error);
  if (error) return absl::NotFoundError(absl::StrCat(host_path, ": ", error.message()));
  auto image = std::make_unique<Image>();
  image->path = canonical.string();
  std::ifstream in(image->path, std::ios::binary);
  image->bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return absl::InternalError("cannot read " + image->path);
  Elf64_Ehdr eh;
  if (!ReadAt(image->bytes, 0, &eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
      eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_machine != EM_AARCH64) {
    return absl::InvalidArgumentError(image->path + " is not a little-endian aarch64 ELF64 file");
  }
  image->type = eh.e_type;
  image->entry = eh.e_entry;
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!ReadAt(image->bytes, eh.e_phoff + uint64_t{i} * eh.e_phentsize, &ph)) {
      return absl::InvalidArgumentError(image->path + ": program headers past the end");
    }
    if (ph.p_type == PT_LOAD) {
      image->loads.push_back({ph.p_offset, ph.p_vaddr, ph.p_filesz, (ph.p_flags & PF_X) != 0});
    } else if (ph.p_type == PT_INTERP && ph.p_offset < image->bytes.size()) {
      const char* s = reinterpret_cast<const char*>(image->bytes.data() + ph.p_offset);
      image->interpreter.assign(s, strnlen(s, image->bytes.size() - ph.p_offset));
    } else if (ph.p_type == PT_NOTE) {
      uint64_t at = ph.p_offset;
      const uint64_t end = ph.p_offset + ph.p_filesz;
      Elf64_Nhdr nh;
      while (at + sizeof nh <= end && ReadAt(image->bytes, at, &nh)) {
        const uint64_t name = at + sizeof nh;
        const uint64_t desc = name + ((nh.n_namesz + 3) & ~3u);
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && desc + nh.n_descsz <= end &&
            std::memcmp(image->bytes.data() + name, "GNU", 4) == 0) {
          image->build_id.assign(reinterpret_cast<const char*>(image->bytes.data() + desc),
                                 nh.n_descsz);
        }
        at = desc + ((nh.n_descsz + 3) & ~3u);
      }
    }
  }
  if (image->loads.empty()) return absl::InvalidArgumentError(image->path + " has no PT_LOAD");
  return image;
}

// How an instruction moves control, as the trace sees it.
enum class Kind { kNext, kDirect, kIndirect, kSvc, kOtherException };

struct Instruction {
  Kind kind = Kind::kNext;
  bool conditional = false;
  uint64_t target = 0;  // kDirect
};

Instruction Classify(uint32_t word, uint64_t pc) {
  Instruction out;
  if (std::optional<uint64_t> target = cs_etm::A64DirectBranchTarget(word, pc)) {
    out.kind = Kind::kDirect;
    out.target = *target;
    const bool b_or_bl = (word & 0x7c000000u) == 0x14000000u;
    const bool b_cond = (word & 0xff000010u) == 0x54000000u;
    const bool always = b_cond && (word & 0xeu) == 0xeu;  // B.AL, B.NV
    out.conditional = !b_or_bl && !always;
    return out;
  }
  // Unconditional branch (register): BR, BLR, RET and the pointer-
  // authenticated BRA*, BLRA*, RETA*; ERET and DRPS leave EL0 code alone.
  if ((word & 0xfe000000u) == 0xd6000000u) {
    const uint32_t opc = (word >> 21) & 0xf;
    if (opc == 0 || opc == 1 || opc == 2 || opc == 8 || opc == 9)
      out.kind = Kind::kIndirect;
    else
      out.kind = Kind::kOtherException;
    return out;
  }
  if ((word & 0xffe0001fu) == 0xd4000001u) {
    out.kind = Kind::kSvc;
    return out;
  }
  if ((word & 0xff000000u) == 0xd4000000u) out.kind = Kind::kOtherException;  // HVC, BRK, ...
  return out;
}

struct Mapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t pgoff = 0;
  const Image* image = nullptr;
  uint64_t Offset(uint64_t pc) const { return pc - start + pgoff; }
};

struct PairHash {
  size_t operator()(const std::pair<uint64_t, uint64_t>& p) const {
    return absl::HashOf(p.first, p.second);
  }
};

struct Counts {
  absl::flat_hash_map<std::pair<uint64_t, uint64_t>, uint64_t, PairHash> ranges;  // offsets
  // from, to (0: in another file or untraced), indirect, and whether the
  // trace names the target before its block ends (an indirect branch's
  // target is the next range's start, in the same block).
  std::map<std::tuple<uint64_t, uint64_t, bool, bool>, uint64_t> branches;
};

}  // namespace

// One guest thread (qemu's vCPU index N, "Trace N:"), traced on CPU N.
struct Thread {
  uint32_t cpu = 0;
  int32_t tid = 0;
  bool started = false;
  bool outside = false;  // running code in no file: untraced
  uint64_t pc = 0;       // the last instruction seen
  uint32_t word = 0;
  const Mapping* mapping = nullptr;
  uint64_t range_start = 0;
  EtmV4Encoder encoder;
  size_t pending_atoms = 0;
  std::vector<TruthEvent> events;  // of the buffer being written
  // The last Trace line, run only once no "Stopped execution" line takes
  // it back: its pc and host address.
  bool logged = false;
  uint64_t logged_pc = 0;
  uint64_t logged_host = 0;
};

class QemuRecorder::Impl {
 public:
  QemuRecorderOptions options;
  QemuRecorderStats stats;
  std::unique_ptr<RecordingWriter> writer;
  std::map<std::string, std::unique_ptr<Image>> images;  // by canonical path
  const Image* program = nullptr;
  std::deque<Mapping> mappings;  // never moves an element: threads point into it
  std::map<const Image*, Counts> counts;
  std::map<int64_t, std::string> open_files;  // guest fd -> host path
  std::deque<Thread> threads;                 // by cpu
  uint64_t clock = 10;
  bool finished = false;
  bool saw_strace = false;
  // A syscall line whose result another thread's lines cut off.
  std::string pending_call;
  // Translation blocks (options.blocks): the listing being read, and the
  // length of every block listed, by start pc.
  bool in_block = false;
  uint64_t block_pc = 0;
  uint32_t block_length = 0;
  absl::flat_hash_map<uint64_t, uint32_t> block_lengths;

  EtmContext Context(const Thread& t) const {
    EtmContext context;
    context.el = 0;
    context.context_id = static_cast<uint32_t>(t.tid);
    return context;
  }

  std::string HostPath(const std::string& guest) const {
    if (!options.prefix.empty() && !guest.empty() && guest.front() == '/') {
      std::error_code error;
      std::string prefixed = options.prefix + guest;
      if (std::filesystem::exists(prefixed, error)) return prefixed;
    }
    return guest;
  }

  absl::StatusOr<const Image*> ImageOf(const std::string& host_path) {
    absl::StatusOr<std::unique_ptr<Image>> image = LoadImage(host_path);
    if (!image.ok()) return image.status();
    auto [it, added] = images.try_emplace((*image)->path, std::move(*image));
    return it->second.get();
  }

  absl::Status Map(const Image* image, uint64_t address, uint64_t length, uint64_t pgoff) {
    Mapping m{address, address + length, pgoff, image};
    for (const Mapping& other : mappings) {
      if (m.start < other.end && other.start < m.end) {
        return absl::UnimplementedError(
            absl::StrFormat("%s mapped at %#x over %s at %#x: remapping code is not modelled",
                            image->path, address, other.image->path, other.start));
      }
    }
    mappings.push_back(m);
    ++stats.mappings;
    FileMapping record{address, length, pgoff, image->path, image->build_id};
    return writer->AddMapping(options.pid, options.pid, record, clock++);
  }

  // Every executable PT_LOAD of an image qemu loads itself, `bias` added.
  absl::Status MapLoads(const Image* image, uint64_t bias) {
    for (const Image::Load& load : image->loads) {
      if (!load.exec) continue;
      const uint64_t start = PageDown(load.vaddr);
      absl::Status s = Map(image, bias + start, PageUp(load.vaddr + load.file_size) - start,
                           PageDown(load.offset));
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }

  const Mapping* Find(uint64_t address) const {
    for (const Mapping& m : mappings) {
      if (address >= m.start && address < m.end) return &m;
    }
    return nullptr;
  }

  absl::Status Fetch(Thread& t, uint64_t address) {
    if (t.mapping == nullptr || address < t.mapping->start || address >= t.mapping->end) {
      t.mapping = Find(address);
      if (t.mapping == nullptr) {
        return absl::DataLossError(absl::StrFormat(
            "pc %#x, in no mapped file, follows %#x, which does not branch", address, t.pc));
      }
    }
    if (!ReadAt(t.mapping->image->bytes, t.mapping->Offset(address), &t.word)) {
      return absl::OutOfRangeError(
          absl::StrFormat("pc %#x is past the end of %s", address, t.mapping->image->path));
    }
    t.pc = address;
    return absl::OkStatus();
  }

  void Push(Thread& t, TruthEvent::Kind kind) {
    TruthEvent event;
    event.kind = kind;
    t.events.push_back(event);
  }

  void BeginBuffer(Thread& t, uint64_t at) {
    Push(t, TruthEvent::Kind::kBlockStart);
    t.encoder.ASync();
    t.encoder.TraceInfo();
    t.encoder.AddressWithContext(at, Context(t));
    t.pending_atoms = 0;
  }

  absl::Status EndBuffer(Thread& t) {
    std::vector<uint8_t> trace = t.encoder.Take();
    t.pending_atoms = 0;
    FrameFormatter formatter;
    formatter.Add(TraceIdOfCpu(t.cpu), trace);
    ++stats.buffers;
    Push(t, TruthEvent::Kind::kBlockEnd);
    t.events.front().time = clock;
    if (options.on_buffer) options.on_buffer(t.cpu, t.events);
    t.events.clear();
    return writer->AddBuffer(t.cpu, clock++, formatter.Finish(), /*raw=*/false);
  }

  // The first instruction of the program (thread 0) or of a thread it
  // started (in its code already mapped).
  absl::Status Start(Thread& t, uint64_t first) {
    if (t.cpu == 0) {
      if (absl::Status s = MapLoads(program, 0); !s.ok()) return s;
      // qemu enters the interpreter first: its load bias is the first pc
      // minus its entry (checked below: the first pc must be in its code).
      // A static program is entered at its own entry.
      const Image* entered = program;
      if (!program->interpreter.empty()) {
        absl::StatusOr<const Image*> interp = ImageOf(HostPath(program->interpreter));
        if (!interp.ok()) return interp.status();
        if (absl::Status s = MapLoads(*interp, first - (*interp)->entry); !s.ok()) return s;
        entered = *interp;
      }
      if (const Mapping* m = Find(first);
          m == nullptr || m->image != entered || (entered == program && first != program->entry)) {
        return absl::FailedPreconditionError(absl::StrFormat(
            "the first pc %#x is not the entry of %s (%#x)", first, entered->path, entered->entry));
      }
    } else if (Find(first) == nullptr) {
      return absl::UnimplementedError(
          absl::StrFormat("thread %u starts at %#x, in no mapped file", t.cpu, first));
    }
    if (absl::Status s = writer->StartCpu(t.cpu, options.pid, t.tid, clock++); !s.ok()) return s;
    BeginBuffer(t, first);
    t.started = true;
    t.range_start = first;
    return Fetch(t, first);
  }

  // The range that ends at `t.pc` (a waypoint) ran once more.
  void CountRange(Thread& t, bool taken) {
    TruthEvent range;
    range.kind = TruthEvent::Kind::kRange;
    range.start = t.range_start;
    range.end = t.pc + 4;
    range.instructions = static_cast<uint32_t>((range.end - range.start) / 4);
    range.context = {options.pid, t.tid, 0};
    range.taken = taken;
    t.events.push_back(range);
    ++stats.waypoints;
    Counts& c = counts[t.mapping->image];
    ++c.ranges[{t.mapping->Offset(t.range_start), t.mapping->Offset(t.pc)}];
  }

  void CountBranch(Thread& t, uint64_t to, bool indirect, bool target_in_block) {
    ++stats.taken;
    const Mapping* target = Find(to);
    const uint64_t to_offset =
        target != nullptr && target->image == t.mapping->image ? target->Offset(to) : 0;
    ++counts[t.mapping->image]
          .branches[{t.mapping->Offset(t.pc), to_offset, indirect, target_in_block}];
  }

  absl::Status Step(Thread& t, uint64_t next) {
    const uint64_t pc = t.pc;
    const uint32_t word = t.word;
    const Instruction in = Classify(word, pc);
    EtmV4Encoder& encoder = t.encoder;
    bool waypoint = true;
    switch (in.kind) {
      case Kind::kDirect: {
        const bool taken = !in.conditional || next != pc + 4;
        if (taken && next != in.target) {
          return absl::DataLossError(absl::StrFormat(
              "the branch at %#x (%08x) goes to %#x, not to %#x", pc, word, in.target, next));
        }
        if (!taken && next != pc + 4) {
          return absl::DataLossError(absl::StrFormat("%#x follows %#x", next, pc));
        }
        encoder.Atom(taken);
        ++t.pending_atoms;
        CountRange(t, taken);
        if (taken) CountBranch(t, in.target, false, true);
        break;
      }
      case Kind::kIndirect:
        encoder.Atom(true);
        ++t.pending_atoms;
        if (Find(next) != nullptr) {  // else trace stops with the atom
          encoder.LongAddress(next);
          t.pending_atoms = 0;
        }
        ++stats.indirect;
        CountRange(t, true);
        break;
      case Kind::kSvc:
        // The kernel returns after the SVC, or (a signal delivered on the
        // way out) to a handler; either way trace resumes where it returns.
        encoder.Exception(kExceptionCall, pc + 4);
        t.pending_atoms = 0;
        ++stats.syscalls;
        CountRange(t, true);
        if (Find(next) != nullptr) {
          encoder.TraceOn();
          encoder.AddressWithContext(next, Context(t));
          Push(t, TruthEvent::Kind::kTraceOn);
        }
        break;
      case Kind::kNext:
      case Kind::kOtherException:
        waypoint = false;
        if (next != pc + 4) {
          return absl::DataLossError(
              absl::StrFormat("%#x follows %#x (%08x), which does not branch", next, pc, word));
        }
        break;
    }
    if (waypoint) {
      t.range_start = next;
      if (Find(next) == nullptr) {
        if (!saw_strace) {
          return absl::FailedPreconditionError(absl::StrFormat(
              "pc %#x (after %#x) is in no mapped file, and the log has no -strace lines that "
              "would map one: run qemu with -strace",
              next, pc));
        }
        t.outside = true;
        ++stats.untraced;
        if (in.kind == Kind::kIndirect) CountBranch(t, next, true, false);
        return absl::OkStatus();
      }
      const bool cut = encoder.size() + t.pending_atoms >= options.buffer_bytes;
      // Counted before the cut: Find() and the offsets need t.pc's mapping.
      if (in.kind == Kind::kIndirect) CountBranch(t, next, true, !cut);
      if (cut) {
        if (absl::Status s = EndBuffer(t); !s.ok()) return s;
        BeginBuffer(t, next);
      }
    }
    return Fetch(t, next);
  }

  // Code in no file: untraced until a pc in a file, where trace resumes
  // (Trace On and an Address with Context, or a new buffer).
  absl::Status Outside(Thread& t, uint64_t next) {
    if (Find(next) == nullptr) {
      ++stats.untraced;
      return absl::OkStatus();
    }
    t.outside = false;
    t.range_start = next;
    if (t.encoder.size() + t.pending_atoms >= options.buffer_bytes) {
      if (absl::Status s = EndBuffer(t); !s.ok()) return s;
      BeginBuffer(t, next);
    } else {
      t.encoder.TraceOn();
      t.encoder.AddressWithContext(next, Context(t));
      t.pending_atoms = 0;
      Push(t, TruthEvent::Kind::kTraceOn);
    }
    return Fetch(t, next);
  }

  // A block's instruction as in_asm lists it: its length is counted, its
  // word checked against the file when the file is mapped already.
  absl::Status BlockInstruction(const QemuLine& line) {
    if (!in_block) return absl::OkStatus();
    if (block_length == 0) block_pc = line.pc;
    if (line.pc != block_pc + 4 * block_length) {
      return absl::DataLossError(absl::StrFormat("the block at %#x lists %#x as its instruction %u",
                                                 block_pc, line.pc, block_length));
    }
    ++block_length;
    if (const Mapping* m = Find(line.pc); m != nullptr) {
      uint32_t file_word = 0;
      if (!ReadAt(m->image->bytes, m->Offset(line.pc), &file_word) || file_word != line.word) {
        return absl::DataLossError(absl::StrFormat("qemu translated %08x at %#x, where %s has %08x",
                                                   line.word, line.pc, m->image->path, file_word));
      }
    }
    return absl::OkStatus();
  }

  absl::Status EndBlockListing() {
    if (!in_block) return absl::OkStatus();
    in_block = false;
    if (block_length == 0) return absl::OkStatus();
    auto [it, added] = block_lengths.try_emplace(block_pc, block_length);
    if (!added && it->second != block_length) {
      return absl::UnimplementedError(
          absl::StrFormat("the block at %#x was translated with %u and with %u instructions",
                          block_pc, it->second, block_length));
    }
    return absl::OkStatus();
  }

  absl::Status Block(uint32_t cpu, uint64_t start) {
    auto it = block_lengths.find(start);
    if (it == block_lengths.end()) {
      return absl::DataLossError(absl::StrFormat(
          "a block at %#x ran, but in_asm listed none there (run qemu with -d in_asm)", start));
    }
    for (uint32_t i = 0; i < it->second; ++i) {
      if (absl::Status s = Pc(cpu, start + 4 * i); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  // The thread's last logged block ran: its instructions are executed.
  absl::Status Commit(Thread& t) {
    if (!t.logged) return absl::OkStatus();
    t.logged = false;
    return options.blocks ? Block(t.cpu, t.logged_pc) : Pc(t.cpu, t.logged_pc);
  }

  absl::Status Logged(const QemuLine& line) {
    if (line.cpu > 0 && threads.empty()) {
      return absl::FailedPreconditionError("a thread ran before the program's first");
    }
    absl::StatusOr<Thread*> t = ThreadOf(line.cpu);
    if (!t.ok()) return t.status();
    if (absl::Status s = Commit(**t); !s.ok()) return s;
    (*t)->logged = true;
    (*t)->logged_pc = line.pc;
    (*t)->logged_host = line.host;
    return absl::OkStatus();
  }

  absl::Status TakenBack(const QemuLine& line) {
    for (Thread& t : threads) {
      if (t.logged && t.logged_pc == line.pc && t.logged_host == line.host) {
        t.logged = false;
        ++stats.taken_back;
        return absl::OkStatus();
      }
    }
    return absl::DataLossError(absl::StrFormat(
        "qemu stopped a block at %#x (host %#x) that no thread's last Trace line names", line.pc,
        line.host));
  }

  absl::StatusOr<Thread*> ThreadOf(uint32_t cpu) {
    if (cpu >= options.cpus) {
      return absl::ResourceExhaustedError(absl::StrFormat(
          "the program runs a thread on qemu's vCPU %u: record with --cpus %u or more", cpu,
          cpu + 1));
    }
    while (threads.size() <= cpu) {
      Thread& t = threads.emplace_back();
      t.cpu = static_cast<uint32_t>(threads.size() - 1);
      t.tid = options.pid + static_cast<int32_t>(t.cpu);
    }
    return &threads[cpu];
  }

  absl::Status Pc(uint32_t cpu, uint64_t next) {
    ++stats.instructions;
    absl::StatusOr<Thread*> t = ThreadOf(cpu);
    if (!t.ok()) return t.status();
    if (!(*t)->started) return Start(**t, next);
    if ((*t)->outside) return Outside(**t, next);
    return Step(**t, next);
  }

  absl::Status Strace(const QemuLine& line) {
    saw_strace = true;
    switch (line.kind) {
      case QemuLine::Kind::kOpen:
        if (line.fd >= 0) open_files[line.fd] = HostPath(line.path);
        break;
      case QemuLine::Kind::kClose:
        open_files.erase(line.fd);
        break;
      case QemuLine::Kind::kMmap: {
        if (!line.exec || line.failed) break;
        auto file = open_files.find(line.fd);
        if (file == open_files.end()) {
          return absl::UnimplementedError(absl::StrFormat(
              "executable mmap at %#x of fd %d, which names no file opened in the log",
              line.address, line.fd));
        }
        absl::StatusOr<const Image*> image = ImageOf(file->second);
        if (!image.ok()) return image.status();
        return Map(*image, line.address, PageUp(line.length), line.offset);
      }
      default:
        break;
    }
    return absl::OkStatus();
  }

  absl::Status Parsed(const QemuLine& parsed) {
    if (options.blocks) {
      if (parsed.kind == QemuLine::Kind::kBlockInstruction) return BlockInstruction(parsed);
      if (absl::Status s = EndBlockListing(); !s.ok()) return s;
      if (parsed.kind == QemuLine::Kind::kBlockStart) {
        in_block = true;
        block_length = 0;
        return absl::OkStatus();
      }
    }
    if (parsed.kind == QemuLine::Kind::kPc) return Logged(parsed);
    if (parsed.kind == QemuLine::Kind::kStopped) return TakenBack(parsed);
    if (parsed.kind == QemuLine::Kind::kOther || parsed.kind == QemuLine::Kind::kBlockStart ||
        parsed.kind == QemuLine::Kind::kBlockInstruction) {
      return absl::OkStatus();
    }
    return Strace(parsed);
  }

  // A line as qemu's threads leave it: a syscall line may lack its result
  // (" = RESULT" comes on a line of its own, after other threads' lines),
  // and another thread's Trace line may be glued to its end.
  absl::Status Line(std::string_view line) {
    const size_t glued = GluedTrace(line);
    if (absl::Status s = Own(line.substr(0, glued)); !s.ok()) return s;
    if (glued == std::string_view::npos) return absl::OkStatus();
    return Parsed(ParseQemuLine(line.substr(glued)));
  }

  absl::Status Own(std::string_view line) {
    if (line.substr(0, 3) == " = ") {
      if (pending_call.empty()) return absl::OkStatus();
      std::string whole = pending_call + std::string(line);
      pending_call.clear();
      return Whole(whole);
    }
    if (!IsUnfinishedCall(line)) return Whole(line);
    if (!pending_call.empty() && IsExecMmap(pending_call)) {
      return absl::UnimplementedError(
          "two threads' syscalls interleave in the log around an executable mmap: which "
          "result is whose would be a guess");
    }
    pending_call = std::string(line);
    return absl::OkStatus();
  }

  // A line that is whole; one that maps code must parse as such (a piece
  // of a cut mmap line would leave code unmapped, then untraced, silently).
  absl::Status Whole(std::string_view line) {
    QemuLine parsed = ParseQemuLine(line);
    if (parsed.kind != QemuLine::Kind::kMmap && parsed.kind != QemuLine::Kind::kPc &&
        line.find("PROT_EXEC") != std::string_view::npos &&
        line.find("mmap(") != std::string_view::npos) {
      return absl::UnimplementedError(absl::StrCat(
          "a syscall line that maps code, cut by other threads' lines: ", std::string(line)));
    }
    return Parsed(parsed);
  }

  // Where "Trace N: 0x" starts after the line's start (npos: nowhere).
  static size_t GluedTrace(std::string_view line) {
    for (size_t at = line.find("Trace ", 1); at != std::string_view::npos;
         at = line.find("Trace ", at + 1)) {
      size_t i = at + 6;
      while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
      if (i > at + 6 && line.substr(i, 4) == ": 0x") return at;
    }
    return std::string_view::npos;
  }

  // "PID name(ARGS)" without " = RESULT".
  static bool IsUnfinishedCall(std::string_view line) {
    size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0 || line.empty() || line.back() != ')') {
      return false;
    }
    for (size_t i = 0; i < space; ++i) {
      if (line[i] < '0' || line[i] > '9') return false;
    }
    return line.find('(') != std::string_view::npos && line.find(") = ") == std::string_view::npos;
  }
  static bool IsExecMmap(std::string_view call) {
    return call.find(" mmap(") != std::string_view::npos &&
           call.find("PROT_EXEC") != std::string_view::npos;
  }
};

QemuRecorder::QemuRecorder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
QemuRecorder::~QemuRecorder() = default;

absl::StatusOr<std::unique_ptr<QemuRecorder>> QemuRecorder::Create(
    const QemuRecorderOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (options.cpus < 1 || options.cpus > 64) {
    return absl::InvalidArgumentError("cpus must be 1..64");
  }
  absl::StatusOr<const Image*> program = impl->ImageOf(options.program);
  if (!program.ok()) return program.status();
  if ((*program)->type != ET_EXEC) {
    return absl::InvalidArgumentError(options.program +
                                      ": not a non-PIE executable (ET_EXEC): qemu would choose "
                                      "its load address");
  }
  impl->program = *program;
  RecordingLayout layout;
  layout.nr_cpus = options.cpus;
  ProcessMapping process;
  process.pid = options.pid;
  for (uint32_t cpu = 0; cpu < options.cpus; ++cpu) {
    process.tids.push_back(options.pid + static_cast<int32_t>(cpu));
  }
  process.comm = std::filesystem::path(options.program).filename().string().substr(0, 15);
  layout.processes.push_back(process);
  absl::StatusOr<std::unique_ptr<RecordingWriter>> writer =
      RecordingWriter::Create(options.output, layout);
  if (!writer.ok()) return writer.status();
  impl->writer = std::move(*writer);
  return std::unique_ptr<QemuRecorder>(new QemuRecorder(std::move(impl)));
}

absl::Status QemuRecorder::Line(std::string_view line) {
  Impl& d = *impl_;
  ++d.stats.lines;
  if (d.finished) return absl::FailedPreconditionError("a line after Finish");
  return d.Line(line);
}

absl::Status QemuRecorder::Finish() {
  Impl& d = *impl_;
  for (Thread& t : d.threads) {
    if (absl::Status s = d.Commit(t); !s.ok()) return s;
  }
  if (d.threads.empty() || !d.threads[0].started) {
    return absl::FailedPreconditionError("the log has no executed instruction");
  }
  d.finished = true;
  for (Thread& t : d.threads) {
    if (!t.started) continue;
    // exit, exit_group: the thread's last instruction is an SVC that never
    // returns.
    if (!t.outside && Classify(t.word, t.pc).kind == Kind::kSvc) {
      t.encoder.Exception(kExceptionCall, t.pc + 4);
      ++d.stats.syscalls;
      d.CountRange(t, true);
    }
    if (absl::Status s = d.EndBuffer(t); !s.ok()) return s;
  }
  d.stats.threads = d.threads.size();
  d.stats.trace_bytes = d.writer->trace_bytes();
  return d.writer->Finish();
}

profile::Profile QemuRecorder::Truth(profile::Format format) const {
  const bool autofdo = format == profile::Format::kAutoFdo;
  profile::Profile out(format);
  for (const auto& [image, c] : impl_->counts) {
    const profile::BinaryKey key{image->path,
                                 base::BuildId::FromBytes(image->build_id).PaddedTo20()};
    auto address = [&, image = image](uint64_t offset) {
      return autofdo ? image->AutoFdoAddress(offset) : image->Vaddr(offset);
    };
    profile::BinaryCounts counts;
    for (const auto& [range, count] : c.ranges) {
      uint64_t& sum =
          profile::EntryOf(counts.ranges, {address(range.first), address(range.second)});
      sum = profile::AddClamped(sum, count);
    }
    for (const auto& [branch, count] : c.branches) {
      const auto& [from, to, indirect, target_in_block] = branch;
      const bool unknown = to == 0 || (indirect && (autofdo || !target_in_block));
      profile::BranchCount& sum =
          profile::EntryOf(counts.branches, {address(from), unknown ? 0 : address(to)});
      sum.taken = profile::AddClamped(sum.taken, count);
    }
    if (!autofdo) profile::AddFallThroughs(counts);
    out.Add(key, counts);
  }
  return out;
}

const QemuRecorderStats& QemuRecorder::stats() const { return impl_->stats; }

}  // namespace perftk::etm_gen
