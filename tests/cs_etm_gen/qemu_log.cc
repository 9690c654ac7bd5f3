#include "qemu_log.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace perftk::etm_gen {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A whole field: "0x..." in hex, "-N" or "N" in decimal, "NULL" as 0.
std::optional<int64_t> Number(std::string_view s) {
  if (s == "NULL") return 0;
  bool negative = false;
  if (!s.empty() && s.front() == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty() || s.size() > 16 + (base == 10 ? 4 : 0)) return std::nullopt;
  uint64_t value = 0;
  for (char c : s) {
    int d = HexDigit(c);
    if (d < 0 || d >= base) return std::nullopt;
    value = value * base + static_cast<uint64_t>(d);
  }
  if (negative) {
    if (value > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return -static_cast<int64_t>(value);
  }
  return static_cast<int64_t>(value);
}

// "ARGS) = RESULT": the arguments split at top-level commas (quoted strings
// kept whole) and the result text; nullopt without ") = ".
struct Call {
  std::vector<std::string_view> args;
  std::string_view result;
};

std::optional<Call> SplitCall(std::string_view rest) {
  Call call;
  size_t start = 0;
  bool quoted = false;
  for (size_t i = 0; i < rest.size(); ++i) {
    char c = rest[i];
    if (quoted) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        quoted = false;
      continue;
    }
    if (c == '"') {
      quoted = true;
    } else if (c == ',' || c == ')') {
      call.args.push_back(rest.substr(start, i - start));
      start = i + 1;
      if (c == ')') {
        std::string_view tail = rest.substr(i + 1);
        if (tail.substr(0, 3) != " = ") return std::nullopt;
        tail.remove_prefix(3);
        call.result = tail.substr(0, tail.find(' '));
        return call;
      }
    }
  }
  return std::nullopt;
}

QemuLine Pc(std::string_view line) {
  QemuLine out;
  uint32_t cpu = 0;
  size_t i = 6;  // past "Trace "
  while (i < line.size() && line[i] >= '0' && line[i] <= '9' && cpu < (1u << 20)) {
    cpu = cpu * 10 + static_cast<uint32_t>(line[i++] - '0');
  }
  if (i == 6 || line.substr(i, 4) != ": 0x") return out;
  uint64_t host = 0;
  for (i += 4; i < line.size() && HexDigit(line[i]) >= 0 && host >> 60 == 0; ++i) {
    host = host << 4 | static_cast<uint64_t>(HexDigit(line[i]));
  }
  size_t open = line.find('[');
  if (open == std::string_view::npos) return out;
  size_t first = line.find('/', open);
  if (first == std::string_view::npos) return out;
  size_t second = line.find('/', first + 1);
  if (second == std::string_view::npos) return out;
  std::string_view field = line.substr(first + 1, second - first - 1);
  if (field.empty() || field.size() > 16) return out;
  uint64_t pc = 0;
  for (char c : field) {
    int d = HexDigit(c);
    if (d < 0) return out;
    pc = pc << 4 | static_cast<uint64_t>(d);
  }
  out.kind = QemuLine::Kind::kPc;
  out.cpu = cpu;
  out.pc = pc;
  out.host = host;
  return out;
}

// "0x4005d0:  a9bf7bfd  stp ...": an instruction of a translated block.
QemuLine BlockInstruction(std::string_view line) {
  QemuLine out;
  size_t colon = line.find(':');
  if (colon == std::string_view::npos || line.substr(colon, 3) != ":  ") return out;
  std::optional<int64_t> pc = Number(line.substr(0, colon));
  std::string_view word = line.substr(colon + 3, 8);
  if (!pc || word.size() != 8 || (line.size() > colon + 11 && line[colon + 11] != ' ')) return out;
  uint32_t value = 0;
  for (char c : word) {
    int d = HexDigit(c);
    if (d < 0) return out;
    value = value << 4 | static_cast<uint32_t>(d);
  }
  out.kind = QemuLine::Kind::kBlockInstruction;
  out.pc = static_cast<uint64_t>(*pc);
  out.word = value;
  return out;
}

}  // namespace

// "Stopped execution of TB chain before 0xHOST [PC]".
QemuLine Stopped(std::string_view line) {
  QemuLine out;
  constexpr std::string_view kPrefix = "Stopped execution of TB chain before ";
  line.remove_prefix(kPrefix.size());
  // Then "0xHOST [PC] " and, as in Trace lines, the symbol qemu knows there.
  size_t space = line.find(' ');
  size_t close = line.find(']');
  if (space == std::string_view::npos || line.substr(space, 2) != " [" ||
      close == std::string_view::npos || close < space) {
    return out;
  }
  std::optional<int64_t> host = Number(line.substr(0, space));
  std::string_view pc_text = line.substr(space + 2, close - space - 2);
  uint64_t pc = 0;
  if (!host || pc_text.empty() || pc_text.size() > 16) return out;
  for (char c : pc_text) {
    int d = HexDigit(c);
    if (d < 0) return out;
    pc = pc << 4 | static_cast<uint64_t>(d);
  }
  out.kind = QemuLine::Kind::kStopped;
  out.host = static_cast<uint64_t>(*host);
  out.pc = pc;
  return out;
}

QemuLine ParseQemuLine(std::string_view line) {
  if (line.substr(0, 6) == "Trace ") return Pc(line);
  if (line.substr(0, 37) == "Stopped execution of TB chain before ") return Stopped(line);
  if (line == "IN:" || line.substr(0, 4) == "IN: ") {
    QemuLine out;
    out.kind = QemuLine::Kind::kBlockStart;
    return out;
  }
  if (line.substr(0, 2) == "0x") return BlockInstruction(line);
  QemuLine out;
  size_t space = line.find(' ');
  if (space == std::string_view::npos || space == 0) return out;
  std::optional<int64_t> pid = Number(line.substr(0, space));
  if (!pid || *pid <= 0) return out;
  std::string_view call = line.substr(space + 1);
  size_t paren = call.find('(');
  if (paren == std::string_view::npos) return out;
  std::string_view name = call.substr(0, paren);
  if (name != "openat" && name != "close" && name != "mmap") return out;
  std::optional<Call> parts = SplitCall(call.substr(paren + 1));
  if (!parts) return out;
  std::optional<int64_t> result = Number(parts->result);
  if (!result) return out;
  const auto& args = parts->args;
  if (name == "openat") {
    if (args.size() < 2 || args[1].size() < 2 || args[1].front() != '"' || args[1].back() != '"') {
      return out;
    }
    out.kind = QemuLine::Kind::kOpen;
    out.path = std::string(args[1].substr(1, args[1].size() - 2));
    out.fd = *result;
  } else if (name == "close") {
    std::optional<int64_t> fd = args.size() == 1 ? Number(args[0]) : std::nullopt;
    if (!fd) return out;
    out.kind = QemuLine::Kind::kClose;
    out.fd = *fd;
  } else {
    if (args.size() != 6) return out;
    std::optional<int64_t> length = Number(args[1]), fd = Number(args[4]), offset = Number(args[5]);
    if (!length || !fd || !offset) return out;
    out.kind = QemuLine::Kind::kMmap;
    out.length = static_cast<uint64_t>(*length);
    out.fd = *fd;
    out.offset = static_cast<uint64_t>(*offset);
    out.exec = args[2].find("PROT_EXEC") != std::string_view::npos;
    out.failed = *result < 0 && *result > -4096;
    out.address = static_cast<uint64_t>(*result);
  }
  out.pid = static_cast<int32_t>(*pid);
  return out;
}

}  // namespace perftk::etm_gen
