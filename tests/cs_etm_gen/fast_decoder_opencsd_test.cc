// FastTraceDecoder against TraceDecoder (OpenCSD) on the same blocks over
// the same synthetic program: every packet the two hand the sink must be
// the same, field by field, for raw and formatted blocks, ETMv4 and ETE,
// with and without speculation and the return stack, on trace that is well
// formed and on trace with bytes flipped, dropped or cut short. Also to a
// sink that takes replayed paths (kPath), once they are expanded; and a
// profile and synthesizers fed those paths count and sample what they do
// fed the expanded packets.
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/sanitizers.h"
#include "cs_etm/a64_branch.h"
#include "cs_etm/decoder.h"
#include "cs_etm/fast_decoder.h"
#include "cs_etm/itrace.h"
#include "cs_etm/profile.h"
#include "cs_etm/synthesizer.h"
#include "etm_encoder.h"
#include "gtest/gtest.h"
#include "test_sources.h"

namespace perftk::cs_etm {
namespace {

constexpr uint64_t kCodeStart = 0x400000;
constexpr uint64_t kCodeSize = 0x10000;
constexpr uint64_t kOtherStart = 0x420000;  // a second mapping; none in between
constexpr uint64_t kOtherSize = 0x1000;

uint32_t Branch(uint32_t base, int64_t words, int bits) {
  return base | ((static_cast<uint32_t>(words) & ((1u << bits) - 1)) << (bits == 26 ? 0 : 5));
}

// A program of random A64 instructions: mostly plain ones, every kind of
// branch, ISB, WFI (and ERET `with_eret`); direct branches stay inside
// their mapping.
std::vector<uint8_t> RandomCode(std::mt19937& random, size_t size, bool with_eret) {
  std::vector<uint8_t> code(size);
  for (size_t at = 0; at < size; at += 4) {
    const int64_t here = static_cast<int64_t>(at / 4);
    auto within = [&](int64_t reach) {
      int64_t lo = std::max<int64_t>(-here, -reach),
              hi = std::min<int64_t>(size / 4 - here - 1, reach);
      return lo + static_cast<int64_t>(random() % static_cast<uint64_t>(hi - lo + 1));
    };
    uint32_t word = 0x8b020020u;  // add x0, x1, x2
    const uint32_t pick = random() % 100;
    if (pick < 8) {
      word = Branch(0x54000000u | (random() % 14), within(1 << 18), 19);  // b.cond
    } else if (pick < 12) {
      word = Branch(0x14000000u, within(1 << 25), 26);  // b
    } else if (pick < 16) {
      word = Branch(0x94000000u, within(1 << 25), 26);  // bl
    } else if (pick < 21) {
      word = 0xd65f03c0u;  // ret
    } else if (pick < 23) {
      word = 0xd61f0200u;  // br x16
    } else if (pick < 24) {
      word = 0xd63f0200u;  // blr x16
    } else if (pick < 25) {
      word = 0xd5033fdfu;  // isb
    } else if (pick < 26) {
      word = 0xd503207fu;  // wfi
    } else if (pick < 28) {
      word = Branch(0xb4000000u, within(1 << 18), 19);  // cbz
    } else if (pick < 29) {
      word = Branch(0x36000000u | ((random() % 32) << 19), within(1 << 13), 14);  // tbz
    } else if (pick < 35) {
      word = 0xd503201fu;  // nop
    } else if (pick < 37 && with_eret) {
      word = 0xd69f03e0u;  // eret
    }
    std::memcpy(code.data() + at, &word, 4);
  }
  return code;
}

class Program : public DecodeEnvironment, public CodeReader {
 public:
  explicit Program(std::mt19937& random, bool with_eret = false)
      : main_(RandomCode(random, kCodeSize, with_eret)),
        other_(RandomCode(random, kOtherSize, with_eret)) {}
  // `words` at kCodeStart, nothing in the other mapping.
  explicit Program(const std::vector<uint32_t>& words) : main_(4 * words.size()) {
    std::memcpy(main_.data(), words.data(), main_.size());
  }

  int32_t PidOf(int32_t tid) override { return tid < 0 ? tid : tid / 10; }
  uint32_t ReadCode(const PacketContext&, uint64_t address, uint32_t size, uint8_t* out) override {
    const std::vector<uint8_t>* code = nullptr;
    const uint64_t base = Locate(address, code);
    if (code == nullptr) return 0;
    const uint64_t n = std::min<uint64_t>(size, code->size() - (address - base));
    std::memcpy(out, code->data() + (address - base), n);
    return static_cast<uint32_t>(n);
  }
  CodeSpan CodeAt(const PacketContext&, uint64_t address) override {
    const std::vector<uint8_t>* code = nullptr;
    const uint64_t base = Locate(address, code);
    if (code == nullptr) return {};
    const uint64_t offset = address - base;
    return CodeSpan{code, offset, std::span<const uint8_t>(*code).subspan(offset)};
  }

 private:
  uint64_t Locate(uint64_t address, const std::vector<uint8_t>*& code) const {
    if (address >= kCodeStart && address < kCodeStart + kCodeSize) {
      code = &main_;
      return kCodeStart;
    }
    if (address >= kOtherStart && address < kOtherStart + kOtherSize) {
      code = &other_;
      return kOtherStart;
    }
    code = nullptr;
    return 0;
  }
  std::vector<uint8_t> main_;
  std::vector<uint8_t> other_;
};

// A direct branch's target as the packet gives it, or else as the code
// says (OpenCSD's packets leave it to the profile): the two paths must
// agree on where every direct branch goes.
std::string TargetOf(const Packet& p, Program& program) {
  if (p.has_branch_target) return absl::StrFormat("%#x", p.branch_target);
  if (p.last_branch != BranchKind::kDirect) return "-";
  uint8_t word[4];
  if (program.ReadCode(p.context, p.last_address(), 4, word) != 4) return "unreadable";
  std::optional<uint64_t> target = A64DirectBranchTarget(
      word[0] | word[1] << 8 | word[2] << 16 | uint32_t{word[3]} << 24, p.last_address());
  return target ? absl::StrFormat("%#x", *target) : "none";
}

std::string Describe(const Packet& p, Program& program) {
  return absl::StrFormat(
      "kind %d isa %d branch %d taken %d cond %d size %d id %#x count %d exc %d [%#x,%#x) "
      "ts %d ctx %d/%d/%d target %s",
      static_cast<int>(p.kind), static_cast<int>(p.isa), static_cast<int>(p.last_branch),
      p.last_taken, p.last_cond, p.last_size, p.trace_id, p.instr_count, p.exception_number,
      p.start, p.end, p.cs_timestamp, p.context.pid, p.context.tid, p.context.el,
      TargetOf(p, program));
}

// The packets a kPath stands for, with its context and timestamp; others
// as they are.
std::vector<Packet> Expand(std::span<const Packet> packets) {
  std::vector<Packet> expanded;
  for (const Packet& p : packets) {
    if (p.kind == PacketKind::kPath) {
      AppendReplayed(p.path(), p.context, p.cs_timestamp, expanded);
    } else {
      expanded.push_back(p);
    }
  }
  return expanded;
}

struct Collect : PacketSink {
  explicit Collect(Program& program, bool takes_paths = false)
      : program(program), takes_paths(takes_paths) {}
  bool TakesPaths() const override { return takes_paths; }
  absl::Status Consume(std::span<const Packet> packets) override {
    for (const Packet& p : packets) paths += p.kind == PacketKind::kPath;
    for (const Packet& p : Expand(packets)) lines.push_back(Describe(p, program));
    return absl::OkStatus();
  }
  Program& program;
  const bool takes_paths;
  absl::Status EndBlock() override {
    lines.push_back("end of block");
    return absl::OkStatus();
  }
  std::vector<std::string> lines;
  size_t paths = 0;
};

// The program's two mappings as binaries of a profile.
class ProgramLocator : public CodeLocator {
 public:
  explicit ProgramLocator(Program& program) : program_(program) {}
  std::optional<CodeLocation> Locate(const PacketContext&, uint64_t address) override {
    if (address >= kCodeStart && address < kCodeStart + kCodeSize) {
      return CodeLocation{&main_, address - kCodeStart};
    }
    if (address >= kOtherStart && address < kOtherStart + kOtherSize) {
      return CodeLocation{&other_, address - kOtherStart};
    }
    return std::nullopt;
  }
  std::optional<uint64_t> DirectBranchTarget(const PacketContext& context, uint64_t address,
                                             Isa) override {
    uint8_t word[4];
    if (program_.ReadCode(context, address, 4, word) != 4) return std::nullopt;
    return A64DirectBranchTarget(word[0] | word[1] << 8 | word[2] << 16 | uint32_t{word[3]} << 24,
                                 address);
  }

 private:
  Program& program_;
  machine::Dso main_ = Named("main");
  machine::Dso other_ = Named("other");

  static machine::Dso Named(const char* name) {
    machine::Dso dso;
    dso.name = name;
    return dso;
  }
};

class SampleLines : public SampleOutput {
 public:
  absl::Status Emit(const SynthesizedSample& sample) override {
    std::string line = absl::StrFormat(
        "kind %d ctx %d/%d/%d cpu %d time %d ip %#x addr %#x period %d:",
        static_cast<int>(sample.kind), sample.context.pid, sample.context.tid, sample.context.el,
        sample.cpu, sample.time, sample.ip, sample.addr, sample.period);
    for (const perf::BranchEntry& b : sample.branches) {
      line += absl::StrFormat(" %#x/%#x/%#x", b.from, b.to, b.flags);
    }
    lines.push_back(line);
    return absl::OkStatus();
  }
  std::vector<std::string> lines;
};

// What a profile and synthesizers (il with a short period and a ring of
// 8, b, il with --every-taken 3) make of a decoder's packets: fed kPath
// packets as they come (`paths`) or expanded.
class Sinks : public PacketSink {
 public:
  Sinks(Program& program, bool paths)
      : paths_(paths),
        locator_(program),
        profile_(locator_),
        il_(*ParseItrace("i37l8"), {}, program, il_lines_),
        b_(*ParseItrace("b"), {}, program, b_lines_),
        taken_(EveryTaken(), {}, program, taken_lines_) {
    for (SampleSynthesizer* synth : {&il_, &b_, &taken_}) synth->BeginBlock(kNoCpu, 5);
  }
  bool TakesPaths() const override { return paths_; }
  absl::Status Consume(std::span<const Packet> packets) override {
    for (PacketSink* sink : Each()) {
      if (absl::Status s = sink->Consume(packets); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  absl::Status EndBlock() override {
    for (PacketSink* sink : Each()) {
      if (absl::Status s = sink->EndBlock(); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  // Every count and sample, one per line, in an order of their own.
  std::vector<std::string> Lines() const {
    std::vector<std::string> lines;
    for (const auto& [dso, binary] : profile_.binaries()) {
      std::map<std::pair<uint64_t, uint64_t>, uint64_t> ranges(binary.ranges.begin(),
                                                               binary.ranges.end());
      for (const auto& [range, n] : ranges) {
        lines.push_back(
            absl::StrFormat("%s range %#x-%#x %d", dso->name, range.first, range.second, n));
      }
      std::map<BranchProfile::Branch, uint64_t> branches(binary.branches.begin(),
                                                         binary.branches.end());
      for (const auto& [branch, n] : branches) {
        lines.push_back(absl::StrFormat("%s branch %#x->%#x%s %d", dso->name, branch.from,
                                        branch.to, branch.indirect ? " indirect" : "", n));
      }
    }
    for (const SampleLines* out : {&il_lines_, &b_lines_, &taken_lines_}) {
      lines.insert(lines.end(), out->lines.begin(), out->lines.end());
    }
    return lines;
  }

 private:
  static ItraceOptions EveryTaken() {
    ItraceOptions options = *ParseItrace("il8");
    options.taken_period = 3;
    return options;
  }
  std::vector<PacketSink*> Each() { return {&profile_, &il_, &b_, &taken_}; }

  const bool paths_;
  ProgramLocator locator_;
  BranchProfile profile_;
  SampleLines il_lines_, b_lines_, taken_lines_;
  SampleSynthesizer il_, b_, taken_;
};

std::string FirstDifference(const std::vector<std::string>& got,
                            const std::vector<std::string>& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  if (i == got.size() && i == want.size()) return "";
  std::string text = absl::StrFormat("first difference at packet %d (fast %d, OpenCSD %d)\n", i,
                                     got.size(), want.size());
  for (size_t j = i >= 6 ? i - 6 : 0; j < i + 4; ++j) {
    text += "  fast:    " + (j < got.size() ? got[j] : "-") + "\n";
    text += "  OpenCSD: " + (j < want.size() ? want[j] : "-") + "\n";
  }
  return text;
}

// A stream of one source: synchronization, then packets in a random but
// mostly meaningful order, addresses into the program. With `ete`, also
// the packets only ETE has (source addresses, timestamp markers,
// transactions, PE resets), and rarely the exception return header that
// ETE reserves; a synchronization is then followed by a context, as ETE
// units write it.
// With `repeats`, a quarter of the time one of a few motifs comes again:
// an address, then the same atoms (the decoder replays their paths).
std::vector<uint8_t> RandomTrace(std::mt19937& random, size_t packets, bool speculative,
                                 bool ete = false, bool repeats = false) {
  etm_gen::EtmV4Encoder e;
  e.ASync();
  e.TraceInfo();
  etm_gen::EtmContext context{.el = 0, .context_id = 123, .sixty_four_bit = true};
  auto code_address = [&] {
    if (random() % 8 == 0) return kOtherStart + (random() % (kOtherSize / 4)) * 4;
    if (random() % 32 == 0) return uint64_t{0x410000} + (random() % 16) * 4;  // no code
    return kCodeStart + (random() % (kCodeSize / 4)) * 4;
  };
  e.AddressWithContext(code_address(), context);
  struct Motif {
    uint64_t address = 0;
    std::vector<bool> atoms;
  };
  std::vector<Motif> motifs(repeats ? 6 : 0);
  for (Motif& motif : motifs) {
    motif.address = code_address();
    motif.atoms.resize(1 + random() % 20);
    for (size_t i = 0; i < motif.atoms.size(); ++i) motif.atoms[i] = random() % 5 != 0;
  }
  std::vector<uint8_t> out = e.Take();
  auto raw = [&](std::initializer_list<uint8_t> bytes) {
    std::vector<uint8_t> taken = e.Take();
    out.insert(out.end(), taken.begin(), taken.end());
    out.insert(out.end(), bytes.begin(), bytes.end());
  };
  for (size_t i = 0; i < packets; ++i) {
    if (repeats && random() % 4 == 0) {
      const Motif& motif = motifs[random() % motifs.size()];
      e.LongAddress(motif.address);
      for (const bool taken : motif.atoms) e.Atom(taken);
      continue;
    }
    if (ete && random() % 8 == 0) {
      const uint32_t pick = random() % 100;
      const uint64_t source = code_address();
      if (pick < 40) {
        raw({static_cast<uint8_t>(0xb4), static_cast<uint8_t>(random() & 0x7f)});  // short
      } else if (pick < 55) {
        raw({static_cast<uint8_t>(0xb9), static_cast<uint8_t>((source >> 2) & 0x7f),
             static_cast<uint8_t>((source >> 9) & 0x7f), static_cast<uint8_t>(source >> 16),
             static_cast<uint8_t>(source >> 24), static_cast<uint8_t>(source >> 32), 0, 0, 0});
      } else if (pick < 62) {
        raw({static_cast<uint8_t>(0xb0 + random() % 3)});  // source exact match
      } else if (pick < 75) {
        raw({0x88});  // timestamp marker
      } else if (pick < 85) {
        raw({static_cast<uint8_t>(0x0a + random() % 2)});  // transaction start, commit
      } else if (pick < 93) {
        raw({0x06, 0x31, 0x70});  // transaction failure
      } else {
        // A PE reset, or the header ETE reserves: the decoders wait for
        // the next A-sync, which the unit writes with its context.
        raw({0x06, 0x00, 0x70});
        if (pick >= 96) raw({0x07});
        e.ASync();
        e.TraceInfo();
        e.AddressWithContext(code_address(), context);
      }
      continue;
    }
    const uint32_t pick = random() % 100;
    if (pick < 55) {
      e.Atom(random() % 4 != 0);
    } else if (pick < 70) {
      e.LongAddress(code_address());
    } else if (pick < 74) {
      // One draw after the other: the order of a call's arguments is the
      // compiler's, and the traces must be the same whoever compiles them.
      const uint64_t address = code_address();
      e.Exception(static_cast<uint8_t>(random() % 16), address);
    } else if (pick < 76) {
      if (!ete) raw({0x07});  // exception return
    } else if (pick < 79) {
      e.Timestamp(random());
    } else if (pick < 81) {
      context.context_id = 100 + random() % 4;
      context.el = random() % 3 == 0 ? 1 : 0;
      e.Context(context);
    } else if (pick < 83) {
      e.AddressWithContext(code_address(), context);
    } else if (pick < 84) {
      e.TraceOn();
    } else if (pick < 86) {
      raw({static_cast<uint8_t>(0x95), static_cast<uint8_t>(random() & 0x7f)});  // short address
    } else if (pick < 88) {
      raw({static_cast<uint8_t>(0x90 + random() % 3)});  // exact match
    } else if (pick < 89) {
      raw({0x71});  // event
    } else if (pick < 90) {
      raw({0x1b});  // cycle count F3
    } else if (pick < 91) {
      raw({0x00, 0x05});  // overflow
    } else if (pick < 92) {
      e.ASync();
      e.TraceInfo();
      if (ete) e.AddressWithContext(code_address(), context);
    } else if (pick < 95 && speculative) {
      raw({0x2d, static_cast<uint8_t>(1 + random() % 4)});  // commit
    } else if (pick < 97 && speculative) {
      raw({static_cast<uint8_t>(0x30 + random() % 4)});  // mispredict
    } else if (pick < 98 && speculative) {
      raw({0x2e, 0x01});  // cancel one
    } else if (pick < 99) {
      raw({0x00, 0x03});  // discard
    }
  }
  std::vector<uint8_t> rest = e.Take();
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

void Damage(std::mt19937& random, std::vector<uint8_t>& stream) {
  const int kind = random() % 4;
  if (kind == 0) return;
  if (kind == 1) {
    for (int i = 0; i < 3; ++i) stream[random() % stream.size()] ^= 1u << (random() % 8);
  } else if (kind == 2) {
    const size_t at = random() % stream.size();
    stream.erase(stream.begin() + at,
                 stream.begin() + std::min(stream.size(), at + 1 + random() % 6));
  } else {
    stream.resize(stream.size() - random() % std::min<size_t>(stream.size(), 8));
  }
}

struct Counts {
  size_t seeds = 0;  // random sequences added up
  int blocks = 0;
  int followed = 0;
  // Blocks of well-formed trace without speculation or the return stack
  // (which random addresses make underflow): the fast decoder must follow
  // nearly all of them. (The rest meet an exception whose walk OpenCSD
  // starts from memory it never set, and the like.)
  int clean = 0;
  int clean_followed = 0;
  bool round_is_clean = false;
  size_t packets = 0;
  size_t paths = 0;  // kPath packets to the sinks that take them
  int opencsd_crashed = 0;
  int opencsd_fatal = 0;                    // blocks OpenCSD gave up on (damaged, random)
  std::map<std::string, int> not_followed;  // by reason
  std::vector<std::string> last_block;      // the packets of the last block compared
  void Add(const Counts& other) {
    seeds += other.seeds;
    blocks += other.blocks;
    followed += other.followed;
    clean += other.clean;
    clean_followed += other.clean_followed;
    packets += other.packets;
    paths += other.paths;
    opencsd_crashed += other.opencsd_crashed;
    opencsd_fatal += other.opencsd_fatal;
    for (const auto& [why, n] : other.not_followed) not_followed[why] += n;
    last_block = other.last_block;
  }
  std::string Summary() const {
    return absl::StrFormat(
        "%d blocks compared, %d followed; %d of %d clean followed; %d packets, %d paths "
        "replayed; OpenCSD crashed on %d, gave up on %d",
        blocks, followed, clean_followed, clean, packets, paths, opencsd_crashed, opencsd_fatal);
  }
  std::string Reasons() const {
    std::string text = Summary() + "\n";
    for (const auto& [why, n] : not_followed) text += absl::StrFormat("%d: %s\n", n, why);
    return text;
  }
};

void Compare(const CsEtmInfo& info, const TraceBlock& block, bool formatted, uint32_t raw_cpu,
             Program& program, CodeBlockCaches& caches, Counts& counts, const std::string& what) {
  Collect want(program);
  auto opencsd = TraceDecoder::Create(info, {}, formatted, raw_cpu, program);
  ASSERT_TRUE(opencsd.ok()) << opencsd.status();
  if (absl::Status s = (*opencsd)->Decode(block, want); !s.ok()) {
    // A fatal response: random packets can make one that OpenCSD refuses
    // to go on from (the tool reports it); nothing to compare with.
    ASSERT_TRUE(absl::IsDataLoss(s)) << what << ": " << s;
    ++counts.opencsd_fatal;
    return;
  }
  if ((*opencsd)->first_error().find("OpenCSD crashed") != std::string::npos) {
    ++counts.opencsd_crashed;  // nothing to compare with
    return;
  }
  Collect got(program);
  auto fast = FastTraceDecoder::Create(info, {}, formatted, raw_cpu, program, program, caches);
  ASSERT_TRUE(fast.ok()) << fast.status();
  absl::StatusOr<FastTraceDecoder::Outcome> outcome = (*fast)->Decode(block, got);
  ASSERT_TRUE(outcome.ok()) << outcome.status();
  ++counts.blocks;
  counts.clean += counts.round_is_clean;
  counts.clean_followed += counts.round_is_clean && *outcome == FastTraceDecoder::Outcome::kDecoded;
  if (*outcome == FastTraceDecoder::Outcome::kNotFollowed) {
    EXPECT_TRUE(got.lines.empty()) << what << ": not followed, yet packets went out";
    ++counts.not_followed[(*fast)->not_followed_why()];
    return;
  }
  ++counts.followed;
  counts.packets += want.lines.size();
  counts.last_block = want.lines;
  ASSERT_EQ(FirstDifference(got.lines, want.lines), "") << what;

  // The same decode to sinks that take paths.
  Collect got_paths(program, /*takes_paths=*/true);
  ASSERT_TRUE((*fast)->Decode(block, got_paths).ok());
  ASSERT_EQ(FirstDifference(got_paths.lines, want.lines), "") << what << " (paths)";
  counts.paths += got_paths.paths;
  Sinks with_paths(program, /*paths=*/true);
  Sinks expanded(program, /*paths=*/false);
  ASSERT_TRUE((*fast)->Decode(block, with_paths).ok());
  ASSERT_TRUE((*fast)->Decode(block, expanded).ok());
  ASSERT_EQ(FirstDifference(with_paths.Lines(), expanded.Lines()), "") << what << " (sinks)";
}

TraceBlock BlockOf(const std::vector<uint8_t>& data, bool formatted, uint32_t cpu) {
  TraceBlock block;
  block.cpu = cpu;
  block.formatted = formatted;
  block.seed_tid = 1230;
  block.data =
      std::span<const std::byte>(reinterpret_cast<const std::byte*>(data.data()), data.size());
  return block;
}

// Whether this is an ASan build, several times slower (-fsanitize=address).
constexpr bool kAsan = PERFTK_ASAN;

// The seeds of a test: its own and two more, so that its thresholds hold
// over some 1,000 blocks rather than one random sequence's (under ASan its
// own alone: each seed passes them, 30 in a row did, and the release run
// has the three); or, to see how they vary (as they were chosen),
// PERFTK_DIFF_SEEDS=FIRST:COUNT runs the seeds own + 1000 * k for k in
// [FIRST, FIRST + COUNT).
std::vector<uint32_t> SeedsFrom(uint32_t own) {
  uint32_t first = 0;
  uint32_t count = kAsan ? 1 : 3;
  if (const char* env = std::getenv("PERFTK_DIFF_SEEDS"); env != nullptr) {
    std::vector<std::string> parts = absl::StrSplit(env, ':');
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &first) ||
        !absl::SimpleAtoi(parts[1], &count)) {
      ADD_FAILURE() << "PERFTK_DIFF_SEEDS is FIRST:COUNT, not " << env;
    }
  }
  std::vector<uint32_t> seeds;
  for (uint32_t k = first; k < first + count; ++k) seeds.push_back(own + 1000 * k);
  return seeds;
}

// Runs `round` once per seed and adds up what each counted.
template <typename Round>
Counts OverSeeds(uint32_t own, Round round) {
  Counts total;
  for (const uint32_t seed : SeedsFrom(own)) {
    std::mt19937 random(seed);
    Counts counts = round(random);
    counts.seeds = 1;
    total.Add(counts);
    if (::testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << "with seed " << seed;
      break;
    }
  }
  std::printf("%s\n", total.Summary().c_str());
  return total;
}

// 400 blocks of one raw source's random trace over `program`: every other
// one with speculation, a quarter with the return stack, a third damaged;
// ETE rounds also vary the timestamp markers and COMMTRANS.
Counts CompareRawRounds(std::mt19937& random, Program& program, bool ete, bool repeats = false) {
  CodeBlockCaches caches;
  Counts counts;
  for (int round = 0; round < 400; ++round) {
    const bool speculative = round % 2 == 1;
    const uint32_t spec_depth = speculative ? 4 : 0;
    const bool return_stack = repeats ? round % 4 < 2 : round % 8 >= 6;
    CsEtmInfo info;
    if (ete) {
      info.version = 1;
      info.sources.push_back(EteSource(0, spec_depth, return_stack,
                                       /*timestamp_markers=*/round % 4 < 2,
                                       /*commit_transactions=*/round % 3 == 0));
    } else {
      info.sources.push_back(EtmV44Source(0, spec_depth, return_stack));
    }
    std::vector<uint8_t> stream =
        RandomTrace(random, 100 + random() % 1500, speculative, ete, repeats);
    if (round % 3 == 2) Damage(random, stream);
    counts.round_is_clean = !speculative && !return_stack && round % 3 != 2;
    Compare(info, BlockOf(stream, false, 0), false, 0, program, caches, counts,
            absl::StrFormat("round %d", round));
    if (::testing::Test::HasFatalFailure()) break;
  }
  return counts;
}

TEST(FastTraceDecoder, RawTraceAsOpenCsdDecodesIt) {
  const Counts counts = OverSeeds(32, [](std::mt19937& random) {
    Program program(random);
    return CompareRawRounds(random, program, /*ete=*/false);
  });
  if (::testing::Test::HasFailure()) return;
  // Seeds 32 + 1000k, k < 30, one at a time: followed 0.48-0.55 of the
  // blocks, clean followed 0.90-0.99, 8,100 packets or more.
  EXPECT_GE(counts.clean_followed, counts.clean * 9 / 10) << counts.Reasons();
  EXPECT_GT(counts.followed, counts.blocks * 2 / 5) << counts.Reasons();
  EXPECT_GT(counts.packets, 7000u * counts.seeds);
  EXPECT_LE(counts.opencsd_fatal, counts.blocks / 50) << counts.Reasons();
}

// Trace that comes back to where it was with the same atoms, as loops
// make it: the fast decoder replays those atoms' paths, to a sink that
// takes them as kPath packets, and must still make OpenCSD's packets.
TEST(FastTraceDecoder, ReplayedPathsAsOpenCsdDecodesThem) {
  for (const bool ete : {false, true}) {
    const Counts counts = OverSeeds(36, [ete](std::mt19937& random) {
      Program program(random, /*with_eret=*/ete);
      return CompareRawRounds(random, program, ete, /*repeats=*/true);
    });
    if (::testing::Test::HasFailure()) return;
    EXPECT_GT(counts.followed, counts.blocks / 4) << counts.Reasons();
    EXPECT_GT(counts.paths, 300u * counts.seeds) << counts.Reasons();
  }
}

// 200 blocks of three sources' random trace, formatted, over one program.
Counts CompareFormattedRounds(std::mt19937& random) {
  Program program(random);
  CodeBlockCaches caches;
  Counts counts;
  for (int round = 0; round < 200; ++round) {
    CsEtmInfo info;
    const bool speculative = round % 2 == 1;
    for (uint32_t cpu = 0; cpu < 3; ++cpu) {
      info.sources.push_back(EtmV44Source(cpu, speculative ? 4 : 0, round % 8 >= 6));
    }
    etm_gen::FrameFormatter formatter;
    std::vector<std::vector<uint8_t>> streams;
    for (uint32_t cpu = 0; cpu < 3; ++cpu) {
      streams.push_back(RandomTrace(random, 50 + random() % 600, speculative));
      if (round % 3 == 2) Damage(random, streams.back());
    }
    counts.round_is_clean = !speculative && round % 8 < 6 && round % 3 != 2;
    std::vector<size_t> at(3, 0);
    for (bool more = true; more;) {
      more = false;
      const size_t i = random() % 3;
      const size_t n = std::min<size_t>(1 + random() % 30, streams[i].size() - at[i]);
      formatter.Add(
          info.sources[i].trace_id(),
          std::vector<uint8_t>(streams[i].begin() + at[i], streams[i].begin() + at[i] + n));
      at[i] += n;
      for (size_t j = 0; j < 3; ++j) more = more || at[j] < streams[j].size();
    }
    std::vector<uint8_t> frames = formatter.Finish();
    Compare(info, BlockOf(frames, true, 0), true, 0, program, caches, counts,
            absl::StrFormat("round %d", round));
    if (::testing::Test::HasFatalFailure()) break;
  }
  return counts;
}

TEST(FastTraceDecoder, FormattedTraceAsOpenCsdDecodesIt) {
  const Counts counts = OverSeeds(33, CompareFormattedRounds);
  if (::testing::Test::HasFailure()) return;
  // Three sources a block: one that is not followed takes its block.
  // Seeds 33 + 1000k, k < 30, one at a time: followed 0.35-0.45 of the
  // blocks, clean followed 0.76-0.98, 5,000 packets or more.
  EXPECT_GE(counts.clean_followed, counts.clean * 7 / 10) << counts.Reasons();
  EXPECT_GT(counts.followed, counts.blocks / 4) << counts.Reasons();
  EXPECT_GT(counts.packets, 4000u * counts.seeds);
  EXPECT_LE(counts.opencsd_fatal, counts.blocks / 50) << counts.Reasons();
}

// ETE 1.0 reports minor version 0, yet its VMIDs are as wide as TRCIDR2
// says (32 bits here): with the pid in the VMID (perf's contextid2), the
// thread of every range is that VMID. (The differential fuzzer found the
// packet parser reading no VMID at all.)
TEST(FastTraceDecoder, Ete10ReadsWideVmids) {
  std::mt19937 random(35);
  Program program(random);
  for (const uint32_t devarch : {0x47705a13u, 0x47715a13u}) {
    CsEtmInfo info;
    info.version = 1;
    TraceSource source = EteSource(0, 0, false, /*timestamp_markers=*/false);
    source.trcdevarch = devarch;
    source.trcidr2 = (source.trcidr2 & ~(0x1fu << 10)) | 4u << 10;  // 32-bit VMIDs
    source.trcconfigr = 0x80 | 0x1;  // VMID traced, as perf's contextid2 sets it
    info.sources.push_back(source);
    ASSERT_EQ(source.pid_format(), PidFormat::kCtxtId2);
    // A-sync, trace info, trace on, address 0x400000 with a context (EL0,
    // AArch64, non-secure) and VMID 0x13f, then an E atom.
    std::vector<uint8_t> stream(11, 0);
    for (const uint8_t byte : {0x80, 0x01, 0x00, 0x04, 0x85, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00,
                               0x00, 0x00, 0x70, 0x3f, 0x01, 0x00, 0x00, 0xf7}) {
      stream.push_back(byte);
    }
    CodeBlockCaches caches;
    Counts counts;
    Compare(info, BlockOf(stream, false, 0), false, 0, program, caches, counts,
            absl::StrFormat("TRCDEVARCH %#x", devarch));
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_EQ(counts.followed, 1) << counts.Reasons();
    int ranges = 0;
    for (const std::string& line : counts.last_block) {
      if (!line.starts_with("kind 0")) continue;
      ++ranges;
      EXPECT_NE(line.find("ctx 31/319/0"), std::string::npos) << line;
    }
    EXPECT_EQ(ranges, 1) << absl::StrJoin(counts.last_block, "\n");
  }
}

// A replayed path that calls: the call's return address goes on the
// return stack as when the atoms were first followed, and the return that
// comes next takes it. The program calls a function that returns at once
// and branches back to the call; the trace repeats two atom packets, the
// call and the return, then the branch (after the return's pop), apart.
TEST(FastTraceDecoder, AReplayedCallPushesItsReturnAddress) {
  Program program(std::vector<uint32_t>{
      0x94000002u,  // 0x400000: bl 0x400008
      0x17ffffffu,  // 0x400004: b 0x400000
      0xd65f03c0u,  // 0x400008: ret
  });
  CsEtmInfo info;
  info.sources.push_back(EtmV44Source(0, 0, /*return_stack=*/true));
  etm_gen::EtmV4Encoder e;
  e.ASync();
  e.TraceInfo();
  e.AddressWithContext(kCodeStart, {.el = 0, .context_id = 123, .sixty_four_bit = true});
  for (int i = 0; i < 50; ++i) {
    e.Atom(true);  // the call
    e.Atom(true);  // the return
    e.Timestamp(2 * i);
    e.Atom(true);  // back to the call, from the return address popped
    e.Timestamp(2 * i + 1);
  }
  std::vector<uint8_t> stream = e.Take();
  CodeBlockCaches caches;
  Counts counts;
  Compare(info, BlockOf(stream, false, 0), false, 0, program, caches, counts, "calls");
  if (::testing::Test::HasFatalFailure()) return;
  EXPECT_EQ(counts.followed, 1) << counts.Reasons();
  EXPECT_GE(counts.paths, 40u);
  EXPECT_GE(counts.packets, 150u);
}

// A cancel whose count field says 2^32 - 1 elements (five continuation
// bytes of corrupt trace; the differential fuzzer found it): read as an int
// it was -1, which cancelled nothing and went on where OpenCSD does not.
// More elements than any stack holds: a decode error, and the block is
// OpenCSD's. The same for a commit.
TEST(FastTraceDecoder, ACountPastAnyStackIsADecodeError) {
  for (const int header : {0x2e, 0x2d}) {  // cancel format 1, commit
    std::mt19937 random(37);
    Program program(random, /*with_eret=*/true);
    CsEtmInfo info;
    info.version = 1;
    info.sources.push_back(EteSource(0, /*spec_depth=*/4, false, /*timestamp_markers=*/false,
                                     /*commit_transactions=*/true));
    etm_gen::EtmV4Encoder e;
    e.ASync();
    e.TraceInfo();
    e.AddressWithContext(kCodeStart, {.el = 0, .context_id = 123, .sixty_four_bit = true});
    e.Atom(true);
    std::vector<uint8_t> stream = e.Take();
    for (const int byte : {0xb4, 0x64, header, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x2d, 0x01}) {
      stream.push_back(static_cast<uint8_t>(byte));  // a source address, the count, a commit
    }
    e.Atom(true);
    std::vector<uint8_t> rest = e.Take();
    stream.insert(stream.end(), rest.begin(), rest.end());
    for (const uint8_t byte : {0x2d, 0x02}) stream.push_back(byte);
    CodeBlockCaches caches;
    Counts counts;
    Compare(info, BlockOf(stream, false, 0), false, 0, program, caches, counts,
            absl::StrFormat("header %#x", header));
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_EQ(counts.followed, 0) << counts.Reasons();
  }
}

TEST(FastTraceDecoder, EteTraceAsOpenCsdDecodesIt) {
  const Counts counts = OverSeeds(34, [](std::mt19937& random) {
    Program program(random, /*with_eret=*/true);
    return CompareRawRounds(random, program, /*ete=*/true);
  });
  if (::testing::Test::HasFailure()) return;
  EXPECT_GE(counts.clean_followed, counts.clean * 9 / 10) << counts.Reasons();
  // A cancel does not count the source addresses it removes, so OpenCSD's
  // speculation depth drifts until a commit overruns: with speculation,
  // most blocks end in a decode error, which is OpenCSD's to decode.
  EXPECT_GT(counts.followed, counts.blocks / 3) << counts.Reasons();
  EXPECT_GT(counts.packets, 8000u * counts.seeds);
  EXPECT_LE(counts.opencsd_fatal, counts.blocks / 50) << counts.Reasons();
}

}  // namespace
}  // namespace perftk::cs_etm
