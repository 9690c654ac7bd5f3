#include "uprobe/usdt_args.h"

#include <elf.h>

#include <cstdint>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace perftk::uprobe {
namespace {

// Where an argument is, in fetch-args syntax without the type; or why it
// cannot be written there.
struct Location {
  std::string fetch;
  std::string problem;
  // Bits [8, 16) of the register (x86 %ah, %bh, %ch, %dh).
  bool high_byte = false;
};

constexpr char kIndexedAddress[] =
    "base + index addressing: fetch-args cannot add a register to an address";

Location Problem(std::string why) { return Location{"", std::move(why), false}; }

// A decimal or 0x-prefixed integer with an optional sign (and aarch64's '#').
std::optional<int64_t> ParseInteger(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  absl::ConsumePrefix(&text, "#");
  bool negative = false;
  if (absl::ConsumePrefix(&text, "-")) {
    negative = true;
  } else {
    absl::ConsumePrefix(&text, "+");
  }
  if (text.empty()) return std::nullopt;
  uint64_t magnitude = 0;
  const bool parsed = absl::ConsumePrefix(&text, "0x") || absl::ConsumePrefix(&text, "0X")
                          ? absl::SimpleHexAtoi(text, &magnitude)
                          : absl::SimpleAtoi(text, &magnitude);
  if (!parsed || text.empty() || text[0] == '-' || text[0] == '+') return std::nullopt;
  const uint64_t limit = static_cast<uint64_t>(INT64_MAX) + (negative ? 1 : 0);
  if (magnitude > limit) return std::nullopt;
  return static_cast<int64_t>(negative ? 0 - magnitude : magnitude);
}

std::string Dereference(int64_t displacement, absl::string_view kernel_register) {
  return absl::StrFormat(
      "%c%d(%%%s)", displacement < 0 ? '-' : '+',
      displacement < 0 ? -static_cast<uint64_t>(displacement) : static_cast<uint64_t>(displacement),
      kernel_register);
}

std::string Immediate(int64_t value) { return absl::StrCat("\\", value); }

// The kernel's name (arch/x86 regs_query_register_offset) of an AT&T
// register written without its '%'.
std::optional<Location> X86Register(absl::string_view name) {
  struct Family {
    const char* kernel;
    const char* names[4];  // 64, 32, 16, low 8 bits
    const char* high_byte;
  };
  static constexpr Family kFamilies[] = {
      {"ax", {"rax", "eax", "ax", "al"}, "ah"},     {"bx", {"rbx", "ebx", "bx", "bl"}, "bh"},
      {"cx", {"rcx", "ecx", "cx", "cl"}, "ch"},     {"dx", {"rdx", "edx", "dx", "dl"}, "dh"},
      {"si", {"rsi", "esi", "si", "sil"}, nullptr}, {"di", {"rdi", "edi", "di", "dil"}, nullptr},
      {"bp", {"rbp", "ebp", "bp", "bpl"}, nullptr}, {"sp", {"rsp", "esp", "sp", "spl"}, nullptr},
      {"ip", {"rip", "eip", "ip", ""}, nullptr},
  };
  for (const Family& family : kFamilies) {
    for (const char* alias : family.names) {
      if (name == alias) return Location{family.kernel, "", false};
    }
    if (family.high_byte != nullptr && name == family.high_byte) {
      return Location{family.kernel, "", true};
    }
  }
  // r8..r15 with suffix d, w or b.
  absl::string_view number = name;
  if (!absl::ConsumePrefix(&number, "r")) return std::nullopt;
  if (!number.empty() && (number.back() == 'd' || number.back() == 'w' || number.back() == 'b')) {
    number.remove_suffix(1);
  }
  int index = 0;
  if (!absl::SimpleAtoi(number, &index) || index < 8 || index > 15) return std::nullopt;
  return Location{absl::StrCat("r", index), "", false};
}

std::optional<Location> Aarch64Register(absl::string_view name) {
  if (name == "sp" || name == "wsp") return Location{"sp", "", false};
  if (name.size() < 2 || (name[0] != 'x' && name[0] != 'w')) return std::nullopt;
  int index = 0;
  if (!absl::SimpleAtoi(name.substr(1), &index) || index < 0 || index > 30) return std::nullopt;
  return Location{absl::StrCat("x", index), "", false};
}

std::optional<Location> S390Register(absl::string_view name) {
  int index = 0;
  if (!absl::ConsumePrefix(&name, "r") || !absl::SimpleAtoi(name, &index) || index < 0 ||
      index > 15) {
    return std::nullopt;
  }
  return Location{absl::StrCat("r", index), "", false};
}

using RegisterLookup = std::optional<Location> (*)(absl::string_view);

Location UnknownRegister(absl::string_view name) {
  return Problem(absl::StrCat("register '", name,
                              "' has no name in the kernel's fetch-args (not a general-purpose "
                              "register)"));
}

// "SYMBOL", "SYMBOL+N" or "SYMBOL-N" read through "@+X".
Location SymbolMemory(absl::string_view text, const SymbolFetchOffset& symbol_offset) {
  int64_t addend = 0;
  absl::string_view symbol = text;
  const size_t sign = text.find_first_of("+-");
  if (sign != absl::string_view::npos && sign > 0) {
    std::optional<int64_t> parsed = ParseInteger(text.substr(sign));
    if (!parsed) return Problem(absl::StrCat("cannot read the addend of '", text, "'"));
    addend = *parsed;
    symbol = text.substr(0, sign);
  }
  absl::StatusOr<uint64_t> offset = symbol_offset(symbol);
  if (!offset.ok()) return Problem(std::string(offset.status().message()));
  return Location{absl::StrFormat("@+0x%x", *offset + static_cast<uint64_t>(addend)), "", false};
}

// AT&T operands (x86 and s390): "%REG", "$IMM", "DISP(%REG)", "SYM+N(%rip)",
// "DISP(%BASE,%INDEX[,SCALE])", and a bare number (x86: an absolute
// address; s390: a constant) or symbol.
Location AttLocation(absl::string_view operand, RegisterLookup lookup, bool bare_is_constant,
                     const SymbolFetchOffset& symbol_offset) {
  if (absl::ConsumePrefix(&operand, "%")) {
    std::optional<Location> reg = lookup(operand);
    if (!reg) return UnknownRegister(operand);
    reg->fetch.insert(0, "%");
    return *reg;
  }
  if (absl::ConsumePrefix(&operand, "$")) {
    std::optional<int64_t> value = ParseInteger(operand);
    if (!value) return Problem(absl::StrCat("constant '", operand, "' is not a number"));
    return Location{Immediate(*value), "", false};
  }
  const size_t open = operand.find('(');
  if (open == absl::string_view::npos) {
    if (std::optional<int64_t> value = ParseInteger(operand)) {
      if (bare_is_constant) return Location{Immediate(*value), "", false};
      return Location{absl::StrFormat("@0x%x", static_cast<uint64_t>(*value)), "", false};
    }
    return SymbolMemory(operand, symbol_offset);
  }
  if (operand.back() != ')') return Problem("unbalanced parentheses");
  const absl::string_view displacement = operand.substr(0, open);
  const std::vector<absl::string_view> parts =
      absl::StrSplit(operand.substr(open + 1, operand.size() - open - 2), ',');
  if (parts.size() > 1) {
    return Problem(kIndexedAddress);
  }
  absl::string_view base = absl::StripAsciiWhitespace(parts[0]);
  if (!absl::ConsumePrefix(&base, "%")) return Problem("no base register");
  if (base == "rip" || base == "eip") {
    if (ParseInteger(displacement) || displacement.empty()) {
      return Problem("a %rip displacement without a symbol depends on the instruction's length");
    }
    return SymbolMemory(displacement, symbol_offset);
  }
  std::optional<Location> reg = lookup(base);
  if (!reg || reg->high_byte) return UnknownRegister(base);
  std::optional<int64_t> value = displacement.empty() ? 0 : ParseInteger(displacement);
  if (!value) {
    return Problem(absl::StrCat("a symbol displacement on a register ('", displacement,
                                "') cannot be expressed"));
  }
  return Location{Dereference(*value, reg->fetch), "", false};
}

// aarch64: "xN", "wN", "sp", "[REG]", "[REG, IMM]", "IMM".
Location Aarch64Location(absl::string_view operand) {
  if (absl::ConsumePrefix(&operand, "[")) {
    if (!absl::ConsumeSuffix(&operand, "]")) return Problem("unbalanced brackets");
    const std::vector<absl::string_view> parts = absl::StrSplit(operand, ',');
    const absl::string_view base = absl::StripAsciiWhitespace(parts[0]);
    std::optional<Location> reg = Aarch64Register(base);
    if (!reg) return UnknownRegister(base);
    if (parts.size() > 2) return Problem("extended or shifted register offset");
    int64_t displacement = 0;
    if (parts.size() == 2) {
      std::optional<int64_t> value = ParseInteger(parts[1]);
      if (!value) {
        return Problem(kIndexedAddress);
      }
      displacement = *value;
    }
    return Location{Dereference(displacement, reg->fetch), "", false};
  }
  if (std::optional<int64_t> value = ParseInteger(operand)) {
    return Location{Immediate(*value), "", false};
  }
  std::optional<Location> reg = Aarch64Register(operand);
  if (!reg) return UnknownRegister(operand);
  reg->fetch.insert(0, "%");
  return *reg;
}

Location LocationFor(absl::string_view operand, uint16_t machine,
                     const SymbolFetchOffset& symbol_offset) {
  switch (machine) {
    case EM_X86_64:
    case EM_386:
      return AttLocation(operand, &X86Register, false, symbol_offset);
    case EM_S390:
      return AttLocation(operand, &S390Register, true, symbol_offset);
    case EM_AARCH64:
      return Aarch64Location(operand);
    default:
      return Problem(absl::StrCat("argument specs of ELF machine ", machine,
                                  " are not translated (x86_64, i386, aarch64, s390 are)"));
  }
}

}  // namespace

std::vector<std::string> SplitUsdtArguments(absl::string_view arguments) {
  std::vector<std::string> specs;
  std::string current;
  int depth = 0;
  for (char c : arguments) {
    if (c == '[') ++depth;
    if (c == ']' && depth > 0) --depth;
    if (absl::ascii_isspace(static_cast<unsigned char>(c)) && depth == 0) {
      if (!current.empty()) specs.push_back(std::move(current));
      current.clear();
      continue;
    }
    current.push_back(c);
  }
  if (!current.empty()) specs.push_back(std::move(current));
  return specs;
}

UsdtArgument TranslateUsdtArgument(absl::string_view spec, uint16_t machine,
                                   const SymbolFetchOffset& symbol_offset) {
  UsdtArgument argument;
  argument.spec = std::string(spec);
  const size_t at = spec.find('@');
  std::optional<int64_t> size =
      at == absl::string_view::npos ? std::nullopt : ParseInteger(spec.substr(0, at));
  if (!size) {
    argument.problem = "no size before '@'";
    return argument;
  }
  argument.is_signed = *size < 0;
  const uint64_t bytes =
      *size < 0 ? 0 - static_cast<uint64_t>(*size) : static_cast<uint64_t>(*size);
  if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) {
    argument.problem = absl::StrCat("size ", bytes, " bytes: fetch-args types hold 1, 2, 4 or 8");
    return argument;
  }
  argument.size = static_cast<int>(bytes);
  Location location = LocationFor(spec.substr(at + 1), machine, symbol_offset);
  if (!location.problem.empty()) {
    argument.problem = std::move(location.problem);
    return argument;
  }
  if (location.high_byte) {
    if (argument.is_signed) {
      argument.problem = "a signed high-byte register (%ah...): fetch-args bitfields are unsigned";
      return argument;
    }
    argument.fetch = absl::StrCat(location.fetch, ":b8@8/64");
    return argument;
  }
  argument.fetch =
      absl::StrCat(location.fetch, ":", argument.is_signed ? "s" : "u", argument.size * 8);
  return argument;
}

absl::Status ReadAsString(UsdtArgument* argument, int pointer_size) {
  if (argument->fetch.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("argument '", argument->spec, "' cannot be read at all: ", argument->problem));
  }
  if (argument->size != pointer_size || argument->fetch[0] == '\\') {
    return absl::FailedPreconditionError(
        absl::StrCat("argument '", argument->spec, "' is not a pointer (", argument->size, " bytes",
                     argument->fetch[0] == '\\' ? ", a constant" : "", "), so not a string"));
  }
  const std::string location = argument->fetch.substr(0, argument->fetch.rfind(':'));
  argument->fetch = absl::StrCat("+0(", location, "):string");
  return absl::OkStatus();
}

std::vector<UsdtArgument> TranslateUsdtArguments(absl::string_view arguments, uint16_t machine,
                                                 const SymbolFetchOffset& symbol_offset) {
  std::vector<UsdtArgument> translated;
  for (const std::string& spec : SplitUsdtArguments(arguments)) {
    translated.push_back(TranslateUsdtArgument(spec, machine, symbol_offset));
  }
  return translated;
}

}  // namespace perftk::uprobe
