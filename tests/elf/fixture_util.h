// Test helpers for src/elf: builds the fixture programs once per test binary
// (tests/elf/fixtures/build.sh) and reads ground truth from objdump.
#ifndef PERFTK_TESTS_ELF_FIXTURE_UTIL_H_
#define PERFTK_TESTS_ELF_FIXTURE_UTIL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace perftk::elf::testing {

// Directory holding the built fixtures; builds them on first use. Fails the
// calling test (and returns "") if the build fails.
const std::string& FixtureDir();

// Why fixture `name` could not be built (missing toolchain), or "".
std::string MissingReason(const std::string& name);

// Runs a shell command; returns its stdout and sets *status to its exit status.
std::string RunShell(const std::string& command, int* status = nullptr);

// Labels printed by `OBJDUMP -dF FILE` ("0000... <label> (File Offset: 0x..):"),
// label -> every file offset it has.
std::map<std::string, std::vector<uint64_t>> ObjdumpLabels(const std::string& objdump,
                                                           const std::string& file);

}  // namespace perftk::elf::testing

#endif  // PERFTK_TESTS_ELF_FIXTURE_UTIL_H_
